#include "mcm/control/seal.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstring>
#include <iterator>
#include <stdexcept>

namespace mcm::control {
namespace {

constexpr std::size_t kNameField = 32;

template <class T>
void put_at(std::vector<char>& out, std::size_t at, T value) {
  std::memcpy(out.data() + at, &value, sizeof(T));
}

template <class T>
T get_at(const char* in, std::size_t at) {
  T value;
  std::memcpy(&value, in + at, sizeof(T));
  return value;
}

/// The name in a NUL-padded field, or "" when the field is not one (no NUL, bytes after
/// the first NUL, or not a valid name).
std::string field_name(const char* field) {
  const void* nul = std::memchr(field, '\0', kNameField);
  if (nul == nullptr) return {};
  auto n = static_cast<std::size_t>(static_cast<const char*>(nul) - field);
  for (std::size_t i = n; i < kNameField; ++i)
    if (field[i] != '\0') return {};
  std::string name(field, n);
  return valid_name(name) ? name : std::string();
}

std::array<unsigned char, kMacBytes> mac_of(const Key& key, const char* header, const char* payload,
                                            std::size_t payload_bytes) {
  std::array<unsigned char, kMacBytes> out{};
  std::size_t len = 0;
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  EVP_MAC_CTX* ctx = mac == nullptr ? nullptr : EVP_MAC_CTX_new(mac);
  char digest[] = "SHA256";
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", digest, 0),
                         OSSL_PARAM_construct_end()};
  bool ok =
      ctx != nullptr && EVP_MAC_init(ctx, key.data(), key.size(), params) == 1 &&
      EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(header), kHeaderBytes) == 1 &&
      EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(payload), payload_bytes) == 1 &&
      EVP_MAC_final(ctx, out.data(), &len, out.size()) == 1 && len == kMacBytes;
  EVP_MAC_CTX_free(ctx);
  EVP_MAC_free(mac);
  if (!ok) throw std::runtime_error("OpenSSL's HMAC-SHA256 failed");
  return out;
}

}  // namespace

Decoded<Key> parse_key(const std::string& text) {
  std::size_t b = text.find_first_not_of(" \t\r\n");
  std::size_t e = text.find_last_not_of(" \t\r\n");
  std::string hex = b == std::string::npos ? std::string() : text.substr(b, e - b + 1);
  if (hex.size() != 64)
    return Decoded<Key>::failure("a key is 64 hexadecimal digits (256 bits), this has " +
                                 std::to_string(hex.size()) + " characters");
  Key key{};
  for (std::size_t i = 0; i < 32; ++i) {
    int v = 0;
    for (int j = 0; j < 2; ++j) {
      char c = hex[2 * i + static_cast<std::size_t>(j)];
      int d = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
      if (d < 0)
        return Decoded<Key>::failure("character " +
                                     std::to_string(2 * i + static_cast<std::size_t>(j) + 1) +
                                     " of the key is not a hexadecimal digit");
      v = v * 16 + d;
    }
    key[i] = static_cast<unsigned char>(v);
  }
  return Decoded<Key>{key, {}};
}

std::vector<char> seal(Kind kind, const std::string& key_id, const std::string& sender,
                       std::uint64_t sequence, std::int64_t sent_at_ns,
                       const std::vector<char>& payload, const Key& key) {
  if (!valid_name(key_id) || key_id.size() >= kNameField || !valid_name(sender) ||
      sender.size() >= kNameField)
    throw std::invalid_argument("seal: key id '" + key_id + "' or sender '" + sender +
                                "' is not a name of 1..31 bytes");
  if (payload.size() > kMaxPayloadBytes)
    throw std::invalid_argument("seal: payload of " + std::to_string(payload.size()) + " bytes");
  std::vector<char> frame(kHeaderBytes + payload.size() + kMacBytes, '\0');
  put_at(frame, 0, kMagic);
  put_at(frame, 4, kVersion);
  put_at(frame, 6, static_cast<std::uint16_t>(kind));
  put_at(frame, 8, static_cast<std::uint32_t>(payload.size()));
  put_at(frame, 16, sequence);
  put_at(frame, 24, sent_at_ns);
  std::memcpy(frame.data() + 32, key_id.data(), key_id.size());
  std::memcpy(frame.data() + 64, sender.data(), sender.size());
  if (!payload.empty()) std::memcpy(frame.data() + kHeaderBytes, payload.data(), payload.size());
  auto mac = mac_of(key, frame.data(), payload.data(), payload.size());
  std::memcpy(frame.data() + kHeaderBytes + payload.size(), mac.data(), kMacBytes);
  return frame;
}

Decoded<Header> read_header(const char* bytes, std::size_t size) {
  using D = Decoded<Header>;
  if (size < kHeaderBytes)
    return D::failure("a header is " + std::to_string(kHeaderBytes) + " bytes, got " +
                      std::to_string(size));
  auto magic = get_at<std::uint32_t>(bytes, 0);
  if (magic != kMagic)
    return D::failure("not an MCM control frame (magic " + std::to_string(magic) + ")");
  auto version = get_at<std::uint16_t>(bytes, 4);
  if (version != kVersion)
    return D::failure("control protocol version " + std::to_string(version) +
                      ", this side speaks " + std::to_string(kVersion));
  Header h;
  auto kind = get_at<std::uint16_t>(bytes, 6);
  if (kind < 1 || kind > kLastKind) return D::failure("unknown kind " + std::to_string(kind));
  h.kind = static_cast<Kind>(kind);
  h.payload_bytes = get_at<std::uint32_t>(bytes, 8);
  if (h.payload_bytes > kMaxPayloadBytes)
    return D::failure("payload of " + std::to_string(h.payload_bytes) + " bytes, the limit is " +
                      std::to_string(kMaxPayloadBytes));
  if (get_at<std::uint32_t>(bytes, 12) != 0) return D::failure("reserved field is not 0");
  h.sequence = get_at<std::uint64_t>(bytes, 16);
  h.sent_at_ns = get_at<std::int64_t>(bytes, 24);
  h.key_id = field_name(bytes + 32);
  if (h.key_id.empty()) return D::failure("the key id is not a NUL-padded name");
  h.sender = field_name(bytes + 64);
  if (h.sender.empty()) return D::failure("the sender is not a NUL-padded name");
  return D{std::move(h), {}};
}

std::string check_mac(const char* header_bytes, const Header& header, const std::vector<char>& rest,
                      const Key& key) {
  if (rest.size() != header.payload_bytes + kMacBytes)
    return "payload and MAC are " + std::to_string(rest.size()) + " bytes, the header says " +
           std::to_string(header.payload_bytes + kMacBytes);
  auto mac = mac_of(key, header_bytes, rest.data(), header.payload_bytes);
  if (CRYPTO_memcmp(mac.data(), rest.data() + header.payload_bytes, kMacBytes) != 0)
    return "the MAC does not match (another key, or altered bytes)";
  return {};
}

std::string ReplayGuard::accept(const Header& header, std::int64_t now_ns) {
  std::int64_t skew = header.sent_at_ns - now_ns;
  if (skew > kMaxClockSkewNs || skew < -kMaxClockSkewNs)
    return "sent " + std::to_string(skew / 1'000'000'000) +
           " s from now: stale or replayed (limit " +
           std::to_string(kMaxClockSkewNs / 1'000'000'000) + " s)";
  auto id = std::make_pair(header.key_id, header.sender);
  auto it = seen_.find(id);
  if (it != seen_.end() && header.sequence <= it->second.sequence)
    return "sequence " + std::to_string(header.sequence) + " is not above " +
           std::to_string(it->second.sequence) + ", the last accepted from " + header.sender +
           ": replayed";
  if (it == seen_.end() && seen_.size() >= max_senders_) {
    // Forget senders silent for over twice the skew: every frame they sent is stale now.
    for (auto j = seen_.begin(); j != seen_.end();)
      j = now_ns - j->second.heard_at_ns > 2 * kMaxClockSkewNs ? seen_.erase(j) : std::next(j);
    if (seen_.size() >= max_senders_)
      return "too many senders (" + std::to_string(seen_.size()) + ") heard in the last " +
             std::to_string(2 * kMaxClockSkewNs / 1'000'000'000) + " s";
  }
  seen_[id] = Seen{header.sequence, now_ns};
  return {};
}

}  // namespace mcm::control
