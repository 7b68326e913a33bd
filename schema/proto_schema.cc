// See proto_schema.h.
#include "schema/proto_schema.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <utility>

#include <google/protobuf/compiler/importer.h>
#include <google/protobuf/compiler/parser.h>
#include <google/protobuf/io/tokenizer.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace reco {
namespace {

namespace pb = google::protobuf;
namespace fs = std::filesystem;

// Where libprotobuf-dev installs google/protobuf/*.proto: protoc searches it last, so
// a user's file may import "google/protobuf/timestamp.proto" without an --import_path.
constexpr char kWellKnownTypesRoot[] = "/usr/include";

// Gathers what DescriptorPool::BuildFile rejects (a reflection server or a protoset
// can send files that do not fit together).
class BuildErrors : public pb::DescriptorPool::ErrorCollector {
 public:
  void AddError(const std::string& filename, const std::string& element_name, const pb::Message*, ErrorLocation,
                const std::string& message) override {
    errors_.push_back(absl::StrCat(filename, ": ", element_name, ": ", message));
  }
  std::string Text() const { return absl::StrJoin(errors_, "; "); }

 private:
  std::vector<std::string> errors_;
};

// Builds `root` into `pool` after its imports, depth first; `files` holds the protos.
// A stack of its own, not recursion: a server's reflection answer or a protoset may
// chain as many imports as it has files (100,000 overflowed the thread's stack).
absl::Status BuildWithImports(const std::string& root, const std::map<std::string, pb::FileDescriptorProto>& files,
                              pb::DescriptorPool& pool, std::vector<std::string>& built) {
  struct Pending {
    const pb::FileDescriptorProto* file;
    int next_import;
  };
  std::vector<Pending> stack;
  std::set<std::string> on_stack;
  auto visit = [&](const std::string& name, const std::string& imported_by) {
    if (pool.FindFileByName(name) != nullptr) return absl::OkStatus();
    auto it = files.find(name);
    if (it == files.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(imported_by, " imports \"", name, "\", which is not among the files given"));
    }
    if (!on_stack.insert(name).second) {
      return absl::InvalidArgumentError(absl::StrCat("\"", name, "\" imports itself (an import cycle)"));
    }
    stack.push_back({&it->second, 0});
    return absl::OkStatus();
  };
  if (absl::Status status = visit(root, ""); !status.ok()) return status;
  while (!stack.empty()) {
    const pb::FileDescriptorProto& file = *stack.back().file;
    if (stack.back().next_import < file.dependency_size()) {
      absl::Status status = visit(file.dependency(stack.back().next_import++), file.name());
      if (!status.ok()) return status;
      continue;
    }
    BuildErrors errors;
    if (pool.BuildFileCollectingErrors(file, &errors) == nullptr) return absl::InvalidArgumentError(errors.Text());
    built.push_back(file.name());
    on_stack.erase(file.name());
    stack.pop_back();
  }
  return absl::OkStatus();
}

// What protobuf's compiler reports while parsing .proto text. Its line and column
// are zero-based; people (and protoc) count from one.
class ImportErrors : public pb::compiler::MultiFileErrorCollector {
 public:
  void AddError(const std::string& filename, int line, int column, const std::string& message) override {
    if (line < 0) {
      // A file that could not be opened: an import not found on the search path.
      not_found_.insert(filename);
      return;
    }
    errors_.push_back(absl::StrFormat("%s:%d:%d: %s", filename, line + 1, column + 1, message));
  }
  bool empty() const { return errors_.empty() && not_found_.empty(); }
  // One line: the imports not found (with where they were looked for), then the
  // parser's own errors.
  std::string Text(const std::vector<std::string>& searched) const {
    std::vector<std::string> parts;
    for (const std::string& file : not_found_) {
      parts.push_back(absl::StrCat("import \"", file, "\" not found in --import_path or beside the file (searched: ",
                                   absl::StrJoin(searched, ", "), ")"));
    }
    // Without the "was not found or had errors" echo of each missing import.
    for (const std::string& error : errors_) {
      bool echo = false;
      for (const std::string& file : not_found_) {
        echo = echo || error.find(absl::StrCat("Import \"", file, "\" was not found")) != std::string::npos;
      }
      if (!echo) parts.push_back(error);
    }
    return absl::StrJoin(parts, "; ");
  }

 private:
  std::set<std::string> not_found_;
  std::vector<std::string> errors_;
};

// `root` and its imports as FileDescriptorProtos, imports first, each once (a stack of
// its own, as BuildWithImports).
void CollectProtos(const pb::FileDescriptor* root, std::set<std::string>& seen,
                   std::vector<pb::FileDescriptorProto>& out) {
  if (!seen.insert(root->name()).second) return;
  std::vector<std::pair<const pb::FileDescriptor*, int>> stack = {{root, 0}};
  while (!stack.empty()) {
    const pb::FileDescriptor* file = stack.back().first;
    if (stack.back().second < file->dependency_count()) {
      const pb::FileDescriptor* import = file->dependency(stack.back().second++);
      if (seen.insert(import->name()).second) stack.push_back({import, 0});
      continue;
    }
    pb::FileDescriptorProto proto;
    file->CopyTo(&proto);
    file->CopyJsonNameTo(&proto);  // CopyTo leaves out json_name: keep a file's own [json_name = ...]
    out.push_back(std::move(proto));
    stack.pop_back();
  }
}

std::string Absolute(const std::string& path) { return fs::absolute(path).lexically_normal().string(); }

}  // namespace

ProtoSchema::ProtoSchema()
    : pool_(std::make_unique<pb::DescriptorPool>()), factory_(std::make_unique<pb::DynamicMessageFactory>()) {}

ProtoSchema& ProtoSchema::operator=(ProtoSchema&& other) noexcept {
  factory_ = std::move(other.factory_);  // first: the old prototypes read the old pool's descriptors
  pool_ = std::move(other.pool_);
  files_ = std::move(other.files_);
  return *this;
}

const pb::Message& ProtoSchema::Prototype(const pb::Descriptor* type) const { return *factory_->GetPrototype(type); }

const pb::Descriptor* ProtoSchema::FindMessage(absl::string_view full_name) const {
  return pool_->FindMessageTypeByName(std::string(full_name));
}

const pb::ServiceDescriptor* ProtoSchema::FindService(absl::string_view full_name) const {
  return pool_->FindServiceByName(std::string(full_name));
}

std::vector<std::string> ProtoSchema::Services() const {
  std::vector<std::string> names;
  for (const std::string& name : files_) {
    const pb::FileDescriptor* file = pool_->FindFileByName(name);
    for (int i = 0; i < file->service_count(); ++i) names.push_back(file->service(i)->full_name());
  }
  return names;
}

std::vector<std::string> ProtoSchema::Messages() const {
  std::vector<std::string> names;
  for (auto it = files_.rbegin(); it != files_.rend(); ++it) {  // files_ holds dependencies first
    const pb::FileDescriptor* file = pool_->FindFileByName(*it);
    for (int i = 0; i < file->message_type_count(); ++i) names.push_back(file->message_type(i)->full_name());
  }
  return names;
}

absl::StatusOr<ProtoSchema> FromFileDescriptorProtos(std::vector<pb::FileDescriptorProto> files) {
  std::map<std::string, pb::FileDescriptorProto> by_name;
  std::vector<std::string> order;
  for (pb::FileDescriptorProto& file : files) {
    std::string name = file.name();
    if (by_name.emplace(name, std::move(file)).second) order.push_back(std::move(name));
  }
  ProtoSchema schema;
  for (const std::string& name : order) {
    absl::Status status = BuildWithImports(name, by_name, *schema.pool_, schema.files_);
    if (!status.ok()) return status;
  }
  return schema;
}

namespace {

// The source tree --proto's files are read from: every --import_path, then each file's
// own directory, then the well-known types. Each file as found on disk goes to
// disk_files, every directory mapped to searched (the error text names them).
absl::Status MapSourceTree(const std::vector<std::string>& files, const std::vector<std::string>& import_paths,
                           pb::compiler::DiskSourceTree& tree, std::vector<std::string>& disk_files,
                           std::vector<std::string>& searched) {
  std::error_code error;
  for (const std::string& path : import_paths) {
    if (!fs::is_directory(path, error)) {
      return absl::InvalidArgumentError(absl::StrCat("--import_path ", path, ": not a directory"));
    }
    searched.push_back(path);
    tree.MapPath("", Absolute(path));
  }
  for (const std::string& given : files) {
    // A path on disk, or (as protoc and grpcurl take it) a name under an --import_path.
    std::string file = given;
    for (size_t i = 0; !fs::is_regular_file(file, error) && fs::path(given).is_relative() && i < import_paths.size();
         ++i) {
      file = (fs::path(import_paths[i]) / given).string();
    }
    if (!fs::is_regular_file(file, error)) {
      return absl::InvalidArgumentError(absl::StrCat("--proto ", given, ": no such file",
                                                     import_paths.empty() ? "" : " (nor under any --import_path)"));
    }
    disk_files.push_back(file);
    std::string directory = fs::path(file).parent_path().string();
    searched.push_back(directory.empty() ? "." : directory);
    tree.MapPath("", Absolute(directory.empty() ? "." : directory));
  }
  if (fs::exists(fs::path(kWellKnownTypesRoot) / "google/protobuf/descriptor.proto", error)) {
    tree.MapPath("", kWellKnownTypesRoot);
  }
  return absl::OkStatus();
}

// How deep --proto's imports may nest. protobuf's Importer resolves them by
// recursion, a level per import: a chain of 7,000 files ran out of stack inside it.
// Real schemas nest a handful.
constexpr size_t kMaxImportDepth = 1000;

// The files `name` imports, read by protobuf's own parser without resolving them;
// none when it cannot be opened or parsed (the Importer then says why).
std::vector<std::string> ImportsOf(pb::compiler::SourceTree& tree, const std::string& name) {
  std::unique_ptr<pb::io::ZeroCopyInputStream> in(tree.Open(name));
  if (in == nullptr) return {};
  class Quiet final : public pb::io::ErrorCollector {
    void AddError(int, int, const std::string&) override {}
  } quiet;
  pb::io::Tokenizer tokenizer(in.get(), &quiet);
  pb::compiler::Parser parser;
  pb::FileDescriptorProto file;
  parser.Parse(&tokenizer, &file);
  return {file.dependency().begin(), file.dependency().end()};
}

// How deep the Importer would recurse for `root` (its walk: depth first, each file
// once), up to just past `limit`; with a stack of its own.
size_t ImportDepth(pb::compiler::SourceTree& tree, const std::string& root, size_t limit) {
  std::set<std::string> seen = {root};
  std::vector<std::pair<std::vector<std::string>, size_t>> stack;  // a file's imports, the next one
  stack.push_back({ImportsOf(tree, root), 0});
  size_t deepest = 1;
  while (!stack.empty() && deepest <= limit) {
    if (stack.back().second == stack.back().first.size()) {
      stack.pop_back();
      continue;
    }
    const std::string import = stack.back().first[stack.back().second++];
    if (!seen.insert(import).second) continue;
    stack.push_back({ImportsOf(tree, import), 0});
    deepest = std::max(deepest, stack.size());
  }
  return deepest;
}

// `file`'s name in `tree` (the name its importers write), or why it has none.
absl::StatusOr<std::string> VirtualName(pb::compiler::DiskSourceTree& tree, const std::string& file) {
  std::string virtual_file, shadowing;
  switch (tree.DiskFileToVirtualFile(Absolute(file), &virtual_file, &shadowing)) {
    case pb::compiler::DiskSourceTree::SUCCESS:
      return virtual_file;
    case pb::compiler::DiskSourceTree::SHADOWED:
      return absl::InvalidArgumentError(absl::StrCat("--proto ", file, ": its name \"", virtual_file, "\" finds ",
                                                     shadowing, " first on the search path; reorder --import_path"));
    case pb::compiler::DiskSourceTree::CANNOT_OPEN:
      return absl::InvalidArgumentError(
          absl::StrCat("--proto ", file, ": cannot read it (", std::strerror(errno), ")"));
    case pb::compiler::DiskSourceTree::NO_MAPPING:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat("--proto ", file, ": not under any --import_path"));
}

}  // namespace

absl::StatusOr<ProtoSchema> LoadProtoFiles(const std::vector<std::string>& files,
                                           const std::vector<std::string>& import_paths) {
  if (files.empty()) return absl::InvalidArgumentError("--proto: no file given");
  pb::compiler::DiskSourceTree tree;
  std::vector<std::string> disk_files, searched;
  if (absl::Status mapped = MapSourceTree(files, import_paths, tree, disk_files, searched); !mapped.ok()) {
    return mapped;
  }
  ImportErrors errors;
  pb::compiler::Importer importer(&tree, &errors);
  std::set<std::string> seen;
  std::vector<pb::FileDescriptorProto> protos;
  for (const std::string& file : disk_files) {
    absl::StatusOr<std::string> virtual_file = VirtualName(tree, file);
    if (!virtual_file.ok()) return virtual_file.status();
    if (ImportDepth(tree, *virtual_file, kMaxImportDepth) > kMaxImportDepth) {
      return absl::InvalidArgumentError(
          absl::StrCat("--proto ", file, ": its imports nest more than ", kMaxImportDepth, " files deep"));
    }
    const pb::FileDescriptor* descriptor = importer.Import(*virtual_file);
    if (descriptor == nullptr || !errors.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("--proto ", file, ": ", errors.Text(searched)));
    }
    CollectProtos(descriptor, seen, protos);
  }
  absl::StatusOr<ProtoSchema> schema = FromFileDescriptorProtos(std::move(protos));
  if (!schema.ok()) return absl::InvalidArgumentError(absl::StrCat("--proto: ", schema.status().message()));
  return schema;
}

absl::StatusOr<ProtoSchema> LoadProtoset(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat("--protoset ", path, ": cannot read it (", std::strerror(errno), ")"));
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  pb::FileDescriptorSet set;
  // An empty set, or one with fields a FileDescriptorSet does not have, is some other
  // file that happened to parse (protobuf's wire format accepts much).
  if (!set.ParseFromString(bytes.str()) || set.file_size() == 0 ||
      set.GetReflection()->GetUnknownFields(set).field_count() > 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--protoset ", path,
                     ": not a FileDescriptorSet (make one with protoc --include_imports --descriptor_set_out=FILE)"));
  }
  std::vector<pb::FileDescriptorProto> files(set.file().begin(), set.file().end());
  absl::StatusOr<ProtoSchema> schema = FromFileDescriptorProtos(std::move(files));
  if (!schema.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--protoset ", path, ": ", schema.status().message(),
                                                   " (was it made with protoc --include_imports?)"));
  }
  return schema;
}

}  // namespace reco
