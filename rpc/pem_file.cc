// See pem_file.h.
#include "rpc/pem_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace reco {

absl::StatusOr<std::string> ReadPemFile(absl::string_view flag, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " ", path, ": cannot read the file (", std::strerror(errno), ")"));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::InvalidArgumentError(absl::StrCat(flag, " ", path, ": cannot read the file"));
  if (text.str().empty()) return absl::InvalidArgumentError(absl::StrCat(flag, " ", path, ": the file is empty"));
  return text.str();
}

}  // namespace reco
