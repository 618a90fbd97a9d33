#include "remote/signing_keys.hpp"

#include "util/file_io.hpp"
#include "util/scratch_names.hpp"
#include "util/signal_cleanup.hpp"

#include "platform/files.hpp"

#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <vector>

namespace kiln::remote {

namespace fs = std::filesystem;

namespace {

void start_sodium() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium cannot start");
}

std::string base64_of(const unsigned char* bytes, std::size_t size) {
  std::string out(sodium_base64_ENCODED_LEN(size, sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), bytes, size, sodium_base64_VARIANT_ORIGINAL);
  out.resize(std::strlen(out.c_str()));
  return out;
}

// The bytes `text` (surrounding white space ignored) holds in base64, when exactly `size` of them.
template <std::size_t N>
std::optional<std::array<unsigned char, N>> decode(std::string_view text, std::size_t* decoded = nullptr) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  std::vector<unsigned char> bytes(text.size());
  std::size_t length = 0;
  const char* end = nullptr;
  if (sodium_base642bin(bytes.data(), bytes.size(), text.data(), text.size(), nullptr, &length, &end,
                        sodium_base64_VARIANT_ORIGINAL) != 0 || end != text.data() + text.size())
    return std::nullopt;
  if (decoded) *decoded = length;
  if (length != N) return std::nullopt;
  std::array<unsigned char, N> out{};
  std::memcpy(out.data(), bytes.data(), N);
  sodium_memzero(bytes.data(), bytes.size());
  return out;
}

// A key file's text: a regular file (a link to one too, as secrets are often mounted) of a few lines,
// never a FIFO that blocks.
Result<std::string> key_file_text(const fs::path& file) {
  Result<std::vector<std::byte>> bytes = read_regular_file(file, 4096, /*follow_link=*/true);
  if (!bytes) return bytes.error();
  std::string text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  sodium_memzero(bytes->data(), bytes->size());
  return text;
}

// Writes `text` to a new file `path`, never replacing one: a private temporary file (mkstemp's 0600)
// given `mode`, then linked to its name, which fails if the name is taken.
Status write_new_file(const fs::path& path, const std::string& text, mode_t mode) {
  std::string temp = scratch_template(path, "tmp");
  const int fd = platform::make_temporary(temp);
  if (fd < 0) return Error{"cannot write " + path.string() + ": " + std::strerror(errno)};
  const cleanup::ScopedPath on_signal(temp);
  bool ok = fchmod(fd, mode) == 0;
  for (std::size_t written = 0; ok && written < text.size();) {
    const long n = platform::write_some(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) written += static_cast<std::size_t>(n);
  }
  ok = ok && platform::sync_file(fd) && link(temp.c_str(), path.c_str()) == 0;
  const int error = errno;
  platform::close_file(fd);
  unlink(temp.c_str());
  if (ok) return Ok{};
  if (error == EEXIST) return Error{path.string() + " already exists: kiln never replaces a key (remove it to make a new pair)"};
  return Error{"cannot write " + path.string() + ": " + std::strerror(error)};
}

}  // namespace

VerifyKey SigningKey::public_half() const {
  VerifyKey key;
  std::memcpy(key.bytes.data(), bytes.data() + 32, key.bytes.size());
  return key;
}

KeyPair generate_key_pair() {
  start_sodium();
  KeyPair pair;
  crypto_sign_keypair(pair.verify.bytes.data(), pair.signing.bytes.data());
  return pair;
}

std::string key_id(const VerifyKey& key) {
  start_sodium();
  std::array<unsigned char, crypto_generichash_BYTES_MIN> hash{};
  crypto_generichash(hash.data(), hash.size(), key.bytes.data(), key.bytes.size(), nullptr, 0);
  std::string hex(2 * 8 + 1, '\0');
  sodium_bin2hex(hex.data(), hex.size(), hash.data(), 8);
  hex.pop_back();
  return hex;
}

std::string to_base64(const VerifyKey& key) { return base64_of(key.bytes.data(), key.bytes.size()); }

Result<SigningKey> read_signing_key(const std::string& variable, const fs::path& file) {
  start_sodium();
  const std::string named = variable + "=" + file.string();
  Result<std::string> text = key_file_text(file);
  if (!text) return Error{variable + ": " + text.error().message};
  std::size_t decoded = 0;
  std::optional<std::array<unsigned char, 64>> bytes = decode<64>(*text, &decoded);
  sodium_memzero(text->data(), text->size());
  if (!bytes) {
    const std::string hint = decoded == 32 ? " (it holds 32: a verify key? `kiln cache keygen` writes both)" : "";
    return Error{named + ": not a signing key (base64 of 64 bytes)" + hint};
  }
  SigningKey key;
  key.bytes = *bytes;
  sodium_memzero(bytes->data(), bytes->size());
  // The seed decides the public half: a file whose halves disagree would sign what no one can verify.
  std::array<unsigned char, 32> derived{};
  std::array<unsigned char, 64> unused{};
  crypto_sign_seed_keypair(derived.data(), unused.data(), key.bytes.data());
  sodium_memzero(unused.data(), unused.size());
  if (derived != key.public_half().bytes) return Error{named + ": not a signing key (its two halves do not match)"};
  return key;
}

Result<VerifyKey> read_verify_key(const std::string& variable, const std::string& value) {
  start_sodium();
  if (const std::optional<std::array<unsigned char, 32>> bytes = decode<32>(value)) return VerifyKey{*bytes};
  // Not a key: a file. Its name is shown; the value itself, which may be a secret pasted by mistake, not.
  std::size_t decoded = 0;
  if (!decode<32>(value, &decoded) && decoded == 64)
    return Error{variable + ": a signing key, not a verify key (give readers the public key: " + k_verify_key_file + ")"};
  const Result<std::string> text = key_file_text(value);
  if (!text) return Error{variable + ": not a public key (base64 of 32 bytes), and " + text.error().message};
  if (const std::optional<std::array<unsigned char, 32>> bytes = decode<32>(*text)) return VerifyKey{*bytes};
  return Error{variable + "=" + value + ": the file holds no verify key (one line: base64 of a 32-byte public key)"};
}

Result<KeyFiles> write_key_pair(const fs::path& directory) {
  std::error_code ec;
  fs::create_directories(directory, ec);
  if (ec) return Error{"cannot create " + directory.string() + ": " + ec.message()};
  KeyFiles files{directory / k_signing_key_file, directory / k_verify_key_file, {}};
  for (const fs::path& file : {files.signing, files.verify})
    if (fs::symlink_status(file, ec).type() != fs::file_type::not_found)
      return Error{file.string() + " already exists: kiln never replaces a key (remove it to make a new pair)"};
  KeyPair pair = generate_key_pair();
  std::string secret = base64_of(pair.signing.bytes.data(), pair.signing.bytes.size()) + "\n";
  sodium_memzero(pair.signing.bytes.data(), pair.signing.bytes.size());
  Status written = write_new_file(files.signing, secret, 0600);
  sodium_memzero(secret.data(), secret.size());
  if (!written) return written.error();
  written = write_new_file(files.verify, to_base64(pair.verify) + "\n", 0644);
  if (!written) {
    unlink(files.signing.c_str());   // made just now: a pair is written whole or not at all
    return written.error();
  }
  files.key = pair.verify;
  return files;
}

}  // namespace kiln::remote
