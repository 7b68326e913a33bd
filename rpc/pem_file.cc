// See pem_file.h.
#include "rpc/pem_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "absl/strings/str_cat.h"

namespace reco {
namespace {

// OpenSSL's reason for the last failure on this thread ("no start line"), and the
// queue cleared; never any of the file's bytes.
std::string OpenSslReason() {
  const unsigned long code = ERR_peek_last_error();
  const char* reason = code != 0 ? ERR_reason_error_string(code) : nullptr;
  ERR_clear_error();
  return reason != nullptr ? reason : "unknown reason";
}

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};

std::unique_ptr<BIO, BioFree> ReadOnly(const std::string& pem) {
  return std::unique_ptr<BIO, BioFree>(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// The file's first PEM certificate (OpenSSL skips text and other PEM blocks before it).
absl::StatusOr<std::unique_ptr<X509, X509Free>> ReadCertificate(const PemFile& file) {
  ERR_clear_error();
  std::unique_ptr<X509, X509Free> x509(PEM_read_bio_X509(ReadOnly(file.pem).get(), nullptr, nullptr, nullptr));
  if (x509 == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(file.flag, " ", file.path, ": no PEM certificate in it (OpenSSL: ", OpenSslReason(), ")"));
  }
  return x509;
}

}  // namespace

absl::StatusOr<std::string> ReadPemFile(absl::string_view flag, const std::string& path) {
  // A directory opens, then reads as nothing: without this it was "the file is empty".
  struct stat info;
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " ", path, ": a directory, not a file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " ", path, ": cannot read the file (", std::strerror(errno), ")"));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::InvalidArgumentError(absl::StrCat(flag, " ", path, ": cannot read the file"));
  if (text.str().empty()) return absl::InvalidArgumentError(absl::StrCat(flag, " ", path, ": the file is empty"));
  return text.str();
}

absl::Status CheckPemCertificate(const PemFile& file) { return ReadCertificate(file).status(); }

absl::Status CheckTlsKeyPair(const PemFile& cert, const PemFile& key) {
  absl::StatusOr<std::unique_ptr<X509, X509Free>> x509 = ReadCertificate(cert);
  if (!x509.ok()) return x509.status();
  // No passphrase callback: an encrypted key cannot be used by the server unattended.
  std::unique_ptr<EVP_PKEY, KeyFree> pkey(PEM_read_bio_PrivateKey(
      ReadOnly(key.pem).get(), nullptr, [](char*, int, int, void*) { return 0; }, nullptr));
  if (pkey == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(key.flag, " ", key.path,
                                                   ": not a PEM private key, or one protected by a passphrase "
                                                   "(OpenSSL: ",
                                                   OpenSslReason(), ")"));
  }
  if (X509_check_private_key(x509->get(), pkey.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        absl::StrCat(key.flag, " ", key.path, " is not the key of the certificate in ", cert.flag, " ", cert.path));
  }
  if (X509_cmp_current_time(X509_get0_notAfter(x509->get())) < 0) {
    std::unique_ptr<BIO, BioFree> out(BIO_new(BIO_s_mem()));
    ASN1_TIME_print(out.get(), X509_get0_notAfter(x509->get()));
    char* text = nullptr;
    const long n = BIO_get_mem_data(out.get(), &text);
    return absl::InvalidArgumentError(absl::StrCat(cert.flag, " ", cert.path, ": the certificate expired on ",
                                                   std::string(text, n > 0 ? static_cast<size_t>(n) : 0)));
  }
  return absl::OkStatus();
}

}  // namespace reco
