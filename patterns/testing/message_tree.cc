// SPDX-License-Identifier: Apache-2.0
#include "message_tree.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"

namespace reco::patterns::testing {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

template <typename Visit>
void Walk(const Message& m, const std::string& path, const Visit& visit) {
  visit(m, path);
  const auto* reflection = m.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(m, &fields);
  for (const FieldDescriptor* f : fields) {
    if (f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (f->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(m, f); ++i) {
        Walk(reflection->GetRepeatedMessage(m, f, i), absl::StrCat(path, ".", f->name(), "[", i, "]"), visit);
      }
    } else {
      Walk(reflection->GetMessage(m, f), absl::StrCat(path, ".", f->name()), visit);
    }
  }
}

}  // namespace

std::vector<const Message*> AllMessages(const Message& root) {
  std::vector<const Message*> out;
  Walk(root, "", [&](const Message& m, const std::string&) { out.push_back(&m); });
  return out;
}

std::vector<std::string> MessagesNotOnArena(const Message& root, const google::protobuf::Arena* arena) {
  std::vector<std::string> out;
  Walk(root, root.GetDescriptor()->name(), [&](const Message& m, const std::string& path) {
    if (m.GetArena() != arena) out.push_back(path);
  });
  return out;
}

int StringsLongerThan(const Message& root, size_t bytes) {
  int n = 0;
  Walk(root, "", [&](const Message& m, const std::string&) {
    const auto* reflection = m.GetReflection();
    std::vector<const FieldDescriptor*> fields;
    reflection->ListFields(m, &fields);
    for (const FieldDescriptor* f : fields) {
      if (f->cpp_type() != FieldDescriptor::CPPTYPE_STRING) continue;
      if (f->is_repeated()) {
        for (int i = 0; i < reflection->FieldSize(m, f); ++i) {
          if (reflection->GetRepeatedString(m, f, i).size() > bytes) ++n;
        }
      } else if (reflection->GetString(m, f).size() > bytes) {
        ++n;
      }
    }
  });
  return n;
}

}  // namespace reco::patterns::testing
