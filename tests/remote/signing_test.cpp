// Signed remote entries (remote/entry_signing.hpp) and their keys (remote/signing_keys.hpp): what a
// signature proves, what `kiln cache keygen` writes, and the settings that name the keys.
#include "remote/entry_signing.hpp"
#include "remote/remote_settings.hpp"
#include "remote/signing_keys.hpp"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <random>

namespace kiln::remote::signing_tests {
namespace {

namespace fs = std::filesystem;

const std::string k_key = "0123456789abcdef0123456789abcdef";
const std::string k_other = "fedcba9876543210fedcba9876543210";

std::vector<std::byte> bytes_of(std::string_view text) {
  const auto* begin = reinterpret_cast<const std::byte*>(text.data());
  return {begin, begin + text.size()};
}

std::string text_of(std::span<const std::byte> bytes) { return {reinterpret_cast<const char*>(bytes.data()), bytes.size()}; }

const KeyPair k_pair = generate_key_pair();
const KeyPair k_stranger = generate_key_pair();

std::vector<std::byte> signed_entry(const std::string& key, std::string_view value, const KeyPair& by = k_pair) {
  return sign_entry(store::encode_entry(key, bytes_of(value)), by.signing);
}

OpenedEntry::Trust trust_of(std::span<const std::byte> answer, const KeyPair& verify = k_pair) {
  return open_entry(answer, &verify.verify).trust;
}

TEST(EntrySigning, ASignedEntryIsALineInFrontOfTheEntryAndHoldsForItsKeyOnly) {
  const std::vector<std::byte> entry = store::encode_entry(k_key, bytes_of("code"));
  const std::vector<std::byte> answer = sign_entry(entry, k_pair.signing);
  const std::string text = text_of(answer);
  ASSERT_EQ(text.find('\n'), k_signature_line_size - 1);
  EXPECT_EQ(text.substr(0, 31), "kiln-signed 1 " + key_id(k_pair.verify) + " ");
  const OpenedEntry opened = open_entry(answer, &k_pair.verify);
  EXPECT_EQ(opened.trust, OpenedEntry::Trust::signed_by_key);
  EXPECT_EQ(text_of(opened.entry), text_of(entry));
  EXPECT_EQ(opened.signer, key_id(k_pair.verify));
  EXPECT_EQ(trust_of(answer, k_stranger), OpenedEntry::Trust::other_key);
}

TEST(EntrySigning, WithoutAVerifyKeyTheSignatureLineIsSetAsideUnchecked) {
  const std::vector<std::byte> entry = store::encode_entry(k_key, bytes_of("code"));
  for (const std::vector<std::byte>& answer : {entry, sign_entry(entry, k_pair.signing)}) {
    const OpenedEntry opened = open_entry(answer, nullptr);
    EXPECT_EQ(opened.trust, OpenedEntry::Trust::unchecked);
    EXPECT_EQ(text_of(opened.entry), text_of(entry));
  }
}

TEST(EntrySigning, EveryChangedBitFailsTheSignature) {
  const std::vector<std::byte> answer = signed_entry(k_key, "some kernel code");
  for (std::size_t at = k_signature_line_size; at < answer.size(); ++at) {
    std::vector<std::byte> changed = answer;
    changed[at] ^= std::byte{0x10};
    EXPECT_EQ(trust_of(changed), OpenedEntry::Trust::bad_signature) << "byte " << at;
  }
  // The signature itself, flipped where it stays hex.
  std::vector<std::byte> forged = answer;
  forged[40] = forged[40] == std::byte{'0'} ? std::byte{'1'} : std::byte{'0'};
  EXPECT_EQ(trust_of(forged), OpenedEntry::Trust::bad_signature);
}

TEST(EntrySigning, AnEntryWithTheChecksumRecomputedStillFailsTheSignature) {
  // What anyone can do without the key: change the code and write a sound entry around it.
  const std::vector<std::byte> genuine = signed_entry(k_key, "kernel code");
  std::vector<std::byte> forged(genuine.begin(), genuine.begin() + k_signature_line_size);
  const std::vector<std::byte> entry = store::encode_entry(k_key, bytes_of("kernel cod3"));
  forged.insert(forged.end(), entry.begin(), entry.end());
  ASSERT_TRUE(store::decode_entry(open_entry(forged, nullptr).entry, k_key));
  EXPECT_EQ(trust_of(forged), OpenedEntry::Trust::bad_signature);
}

TEST(EntrySigning, UnsignedOrMalformedLinesAreNeverTrusted) {
  EXPECT_EQ(trust_of(store::encode_entry(k_key, bytes_of("x"))), OpenedEntry::Trust::unsigned_entry);
  EXPECT_EQ(trust_of({}), OpenedEntry::Trust::unsigned_entry);
  const std::string line = text_of(signed_entry(k_key, "x"));
  const std::string id = key_id(k_pair.verify);
  for (const std::string& bad : {"kiln-signed 1 " + id + " zz\n", "kiln-signed 1 " + id + "\n",
                                 "kiln-signed 1 " + id + " " + std::string(128, 'g') + "\n",
                                 "kiln-signed 1 " + id + " " + std::string(127, '0') + "\n",
                                 "kiln-signed 1 " + id + "  " + std::string(128, '0') + "\n",
                                 line.substr(0, 60)}) {
    EXPECT_EQ(trust_of(bytes_of(bad + text_of(store::encode_entry(k_key, bytes_of("x"))))),
              OpenedEntry::Trust::bad_signature)
        << bad;
  }
  // Another version's line is not a signature: unsigned.
  EXPECT_EQ(trust_of(bytes_of("kiln-signed 2" + line.substr(13))), OpenedEntry::Trust::unsigned_entry);
}

class KeyFilesTest : public ::testing::Test {
protected:
  KeyFilesTest()
      : m_dir(fs::temp_directory_path() / ("kiln-keys-test-" + std::to_string(std::random_device{}()))) {}
  ~KeyFilesTest() override {
    std::error_code ignored;
    fs::permissions(m_dir, fs::perms::owner_all, ignored);
    fs::remove_all(m_dir, ignored);
  }
  void write(const fs::path& path, const std::string& text) const { std::ofstream(path) << text; }
  fs::path m_dir;
};

TEST_F(KeyFilesTest, KeygenWritesAPairThatSignsAndVerifiesWithThePrivateKeyPrivate) {
  Result<KeyFiles> files = write_key_pair(m_dir / "new");
  ASSERT_TRUE(files) << files.error().message;
  EXPECT_EQ(files->signing, m_dir / "new" / "kiln-cache-signing.key");
  EXPECT_EQ(files->verify, m_dir / "new" / "kiln-cache-verify.pub");
  struct stat info {};
  ASSERT_EQ(stat(files->signing.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  Result<SigningKey> signing = read_signing_key("S", files->signing);
  ASSERT_TRUE(signing) << signing.error().message;
  Result<VerifyKey> from_file = read_verify_key("V", files->verify.string());
  ASSERT_TRUE(from_file) << from_file.error().message;
  Result<VerifyKey> inline_key = read_verify_key("V", to_base64(files->key));
  ASSERT_TRUE(inline_key);
  EXPECT_EQ(*from_file, files->key);
  EXPECT_EQ(*inline_key, files->key);
  EXPECT_EQ(signing->public_half(), files->key);
  const std::vector<std::byte> answer = sign_entry(store::encode_entry(k_key, bytes_of("x")), *signing);
  EXPECT_EQ(open_entry(answer, &*from_file).trust, OpenedEntry::Trust::signed_by_key);
  // Nothing else is left in the directory (the temporary files are gone).
  EXPECT_EQ(std::distance(fs::directory_iterator(m_dir / "new"), fs::directory_iterator()), 2);
}

TEST_F(KeyFilesTest, KeygenNeverReplacesAKey) {
  for (const char* existing : {k_signing_key_file, k_verify_key_file}) {
    const fs::path dir = m_dir / existing;
    fs::create_directories(dir);
    write(dir / existing, "mine\n");
    Result<KeyFiles> files = write_key_pair(dir);
    ASSERT_FALSE(files);
    EXPECT_EQ(files.error().message, (dir / existing).string() +
                                         " already exists: kiln never replaces a key (remove it to make a new pair)");
    std::ifstream in(dir / existing);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "mine\n");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1) << "nothing written";
  }
  // A dangling link is a name taken too: writing through it would create a file elsewhere.
  fs::create_directories(m_dir / "link");
  fs::create_symlink(m_dir / "elsewhere", m_dir / "link" / k_signing_key_file);
  EXPECT_FALSE(write_key_pair(m_dir / "link"));
  EXPECT_FALSE(fs::exists(m_dir / "elsewhere"));
}

TEST_F(KeyFilesTest, KeygenInADirectoryThatCannotBeWrittenSaysWhyAndWritesNothing) {
  // /proc/self takes no new files, even from root.
  Result<KeyFiles> files = write_key_pair("/proc/self");
  ASSERT_FALSE(files);
  EXPECT_EQ(files.error().message.rfind("cannot write /proc/self/kiln-cache-signing.key: ", 0), 0u)
      << files.error().message;
  EXPECT_FALSE(fs::exists("/proc/self/kiln-cache-signing.key"));
  if (geteuid() == 0) return;   // root writes any directory the permissions below would lock
  fs::create_directories(m_dir / "locked");
  fs::permissions(m_dir / "locked", fs::perms::owner_read | fs::perms::owner_exec);
  files = write_key_pair(m_dir / "locked");
  ASSERT_FALSE(files);
  EXPECT_NE(files.error().message.find("Permission denied"), std::string::npos) << files.error().message;
}

TEST_F(KeyFilesTest, KeygenUnderAFileSaysWhy) {
  fs::create_directories(m_dir);
  write(m_dir / "file", "x");
  Result<KeyFiles> files = write_key_pair(m_dir / "file" / "keys");
  ASSERT_FALSE(files);
  EXPECT_NE(files.error().message.find("cannot create " + (m_dir / "file" / "keys").string()), std::string::npos)
      << files.error().message;
}

TEST_F(KeyFilesTest, KeyFilesThatAreNotKeysAreRefusedWithoutShowingWhatTheyHold) {
  fs::create_directories(m_dir);
  Result<KeyFiles> files = write_key_pair(m_dir / "pair");
  ASSERT_TRUE(files);
  const std::string secret = [&] {
    std::ifstream in(files->signing);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  // The public key where the secret one belongs, and the other way round.
  Result<SigningKey> swapped = read_signing_key("KILN_REMOTE_CACHE_SIGNING_KEY", files->verify);
  ASSERT_FALSE(swapped);
  EXPECT_NE(swapped.error().message.find("a verify key?"), std::string::npos) << swapped.error().message;
  for (const std::string& value : {secret, files->signing.string()}) {
    Result<VerifyKey> key = read_verify_key("KILN_REMOTE_CACHE_VERIFY_KEY", value);
    ASSERT_FALSE(key);
    EXPECT_EQ(key.error().message.find(secret.substr(0, 40)), std::string::npos) << "the secret was shown";
  }
  // Halves that do not belong together.
  std::string mixed = secret;
  mixed[50] = mixed[50] == 'A' ? 'B' : 'A';
  write(m_dir / "mixed.key", mixed);
  Result<SigningKey> bad = read_signing_key("S", m_dir / "mixed.key");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("halves do not match"), std::string::npos) << bad.error().message;
  // Missing, a FIFO (read without blocking), a directory, too long.
  ASSERT_EQ(mkfifo((m_dir / "fifo").c_str(), 0600), 0);
  write(m_dir / "long", std::string(10000, 'A'));
  for (const auto& [name, why] : std::map<std::string, std::string>{{"missing", "No such file or directory"},
                                                                    {"fifo", "it is a FIFO, not a regular file"},
                                                                    {"pair", "Is a directory"},
                                                                    {"long", "it is larger than 4096 bytes"}}) {
    Result<SigningKey> key = read_signing_key("KILN_REMOTE_CACHE_SIGNING_KEY", m_dir / name);
    ASSERT_FALSE(key) << name;
    EXPECT_EQ(key.error().message,
              "KILN_REMOTE_CACHE_SIGNING_KEY: cannot read " + (m_dir / name).string() + ": " + why);
    Result<VerifyKey> verify = read_verify_key("KILN_REMOTE_CACHE_VERIFY_KEY", (m_dir / name).string());
    ASSERT_FALSE(verify) << name;
    EXPECT_NE(verify.error().message.find(why), std::string::npos) << verify.error().message;
  }
}

Result<std::optional<RemoteSettings>> settings_of(const std::map<std::string, std::string>& variables) {
  return remote_settings([&](const char* name) -> std::optional<std::string> {
    const auto it = variables.find(name);
    if (it == variables.end()) return std::nullopt;
    return it->second;
  });
}

TEST_F(KeyFilesTest, ASigningKeyVerifiesWithItsOwnHalfAndAVerifyKeyThatIsNotItsPairIsAMistake) {
  Result<KeyFiles> mine = write_key_pair(m_dir / "mine");
  Result<KeyFiles> theirs = write_key_pair(m_dir / "theirs");
  ASSERT_TRUE(mine && theirs);
  const std::string url = "http://cache/kiln";
  Result<std::optional<RemoteSettings>> writer =
      settings_of({{"KILN_REMOTE_CACHE", url}, {"KILN_REMOTE_CACHE_SIGNING_KEY", mine->signing.string()}});
  ASSERT_TRUE(writer) << writer.error().message;
  ASSERT_TRUE((*writer)->signing_key && (*writer)->verify_key);
  EXPECT_EQ(*(*writer)->verify_key, mine->key);
  Result<std::optional<RemoteSettings>> reader =
      settings_of({{"KILN_REMOTE_CACHE", url}, {"KILN_REMOTE_CACHE_VERIFY_KEY", to_base64(theirs->key)}});
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_FALSE((*reader)->signing_key);
  EXPECT_EQ(*(*reader)->verify_key, theirs->key);
  Result<std::optional<RemoteSettings>> both = settings_of({{"KILN_REMOTE_CACHE", url},
                                                            {"KILN_REMOTE_CACHE_SIGNING_KEY", mine->signing.string()},
                                                            {"KILN_REMOTE_CACHE_VERIFY_KEY", theirs->verify.string()}});
  ASSERT_FALSE(both);
  EXPECT_EQ(both.error().message, "KILN_REMOTE_CACHE_VERIFY_KEY (key " + key_id(theirs->key) +
                                      ") is not the public half of KILN_REMOTE_CACHE_SIGNING_KEY (key " +
                                      key_id(mine->key) + "): this build would write entries it refuses");
  EXPECT_TRUE(settings_of({{"KILN_REMOTE_CACHE", url}, {"KILN_REMOTE_CACHE_SIGNING_KEY", mine->signing.string()},
                           {"KILN_REMOTE_CACHE_VERIFY_KEY", mine->verify.string()}}));
  // Without a remote cache, the keys are not read.
  EXPECT_TRUE(settings_of({{"KILN_REMOTE_CACHE_SIGNING_KEY", (m_dir / "missing").string()}}));
}

}  // namespace
}  // namespace kiln::remote::signing_tests
