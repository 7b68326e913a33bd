// TEMPORARY, see temporary_schema_loader.h.
#include "tools/temporary_schema_loader.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "google/protobuf/compiler/importer.h"
#include "google/protobuf/descriptor.pb.h"

namespace reco {
namespace {

using google::protobuf::DescriptorPool;

class ErrorCollector final : public google::protobuf::compiler::MultiFileErrorCollector {
 public:
  void AddError(const std::string& file, int line, int column, const std::string& message) override {
    if (!text.empty()) text += "; ";
    absl::StrAppend(&text, file, ":", line + 1, ":", column + 1, ": ", message);
  }
  std::string text;
};

class ProtoFiles final : public TemporarySchema {
 public:
  explicit ProtoFiles(const std::vector<std::string>& import_paths) : importer_(&tree_, &errors_) {
    for (const std::string& dir : import_paths) tree_.MapPath("", dir);
  }
  absl::Status Load(const std::string& path) {
    // The file's own directory last, so "x.proto" and imports beside it are found.
    const size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    tree_.MapPath("", dir);
    if (importer_.Import(name) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("--proto ", path, ": ",
                                                     errors_.text.empty() ? "cannot read it" : errors_.text));
    }
    files_.push_back(name);
    return absl::OkStatus();
  }
  const DescriptorPool& pool() const override { return *importer_.pool(); }

 private:
  google::protobuf::compiler::DiskSourceTree tree_;
  ErrorCollector errors_;
  google::protobuf::compiler::Importer importer_;
};

class Protoset final : public TemporarySchema {
 public:
  absl::Status Load(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    google::protobuf::FileDescriptorSet set;
    if (!in || !set.ParseFromString(bytes.str())) {
      return absl::InvalidArgumentError(absl::StrCat("--protoset ", path, ": not a readable FileDescriptorSet"));
    }
    for (const google::protobuf::FileDescriptorProto& file : set.file()) {
      if (pool_.BuildFile(file) == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("--protoset ", path, ": ", file.name(), " does not build (an import missing? use --include_imports)"));
      }
      files_.push_back(file.name());
    }
    return absl::OkStatus();
  }
  const DescriptorPool& pool() const override { return pool_; }

 private:
  DescriptorPool pool_;
};

}  // namespace

std::vector<std::string> TemporarySchema::SomeMessageNames(size_t limit) const {
  std::vector<std::string> names;
  for (const std::string& name : files_) {
    const google::protobuf::FileDescriptor* file = pool().FindFileByName(name);
    for (int i = 0; file != nullptr && i < file->message_type_count() && names.size() < limit; ++i) {
      names.push_back(file->message_type(i)->full_name());
    }
  }
  return names;
}

absl::StatusOr<std::unique_ptr<TemporarySchema>> LoadTemporarySchema(const std::vector<std::string>& protos,
                                                                    const std::vector<std::string>& import_paths,
                                                                    const std::string& protoset) {
  if (!protoset.empty()) {
    auto schema = std::make_unique<Protoset>();
    if (absl::Status s = schema->Load(protoset); !s.ok()) return s;
    return std::unique_ptr<TemporarySchema>(std::move(schema));
  }
  auto schema = std::make_unique<ProtoFiles>(import_paths);
  for (const std::string& path : protos) {
    if (absl::Status s = schema->Load(path); !s.ok()) return s;
  }
  return std::unique_ptr<TemporarySchema>(std::move(schema));
}

}  // namespace reco
