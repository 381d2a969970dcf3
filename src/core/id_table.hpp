// Interning of group ids (the text of a csv column, or an int64 id's eight bytes): each distinct id
// gets the number of ids met before it. Open addressing in one flat array of 16-byte slots. An id of at most
// 8 bytes is held in its slot, so looking it up costs one cache line and no compare of bytes elsewhere: the
// node-based std::unordered_map it replaces took a bucket, a node and the key's copy (three misses)
// a row, 42 % of the processor time of a 10^7-row grouped csv whose rows came shuffled. (Boost
// 1.74, the one on Debian, has no flat map, and Abseil's would be a new dependency of the installed
// library for this table alone.)
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string_view>
#include <vector>

namespace wagener::detail {

class IdTable {
 public:
  IdTable() { rehash(16); }

  /// Room for `ids` distinct ids without growing.
  void reserve(std::size_t ids) {
    std::size_t capacity = slots_.size();
    while (capacity < 2 * ids) capacity *= 2;
    if (capacity != slots_.size()) rehash(capacity);
  }

  /// The number of `id`: the count of distinct ids interned before it. A new id is kept as the view
  /// keep(id) returns (the same bytes; they must outlive the table).
  template <class Keep>
  std::uint64_t intern(std::string_view id, Keep&& keep) {
    const Key key = key_of(id);
    for (std::size_t at = key.hash >> shift_;; at = (at + 1) & mask_) {
      Slot& slot = slots_[at];
      if (slot.tag == 0) {
        const std::uint64_t number = ids_.size();
        slot = {key.word, ((number + 1) << kSizeBits) | key.size_code};
        ids_.push_back(keep(id));
        if (2 * ids_.size() > slots_.size()) rehash(2 * slots_.size());
        return number;
      }
      if (slot.word == key.word && (slot.tag & kSizeMask) == key.size_code) {
        const std::uint64_t number = (slot.tag >> kSizeBits) - 1;
        if (key.size_code != kLong || ids_[number] == id) return number;
      }
    }
  }

  /// intern() keeping the view `id` itself.
  std::uint64_t intern(std::string_view id) {
    return intern(id, [](std::string_view same) { return same; });
  }

  /// The ids, in the order of their numbers.
  const std::vector<std::string_view>& ids() const { return ids_; }

 private:
  // A slot: `word` holds a short id's bytes (zero-padded) or a long id's hash; `tag` holds the id's
  // number plus one (0: empty) above kSizeBits bits of size code (the size up to 8, kLong beyond).
  struct Slot {
    std::uint64_t word = 0;
    std::uint64_t tag = 0;
  };
  struct Key {
    std::uint64_t word, hash, size_code;
  };
  static constexpr unsigned kSizeBits = 4;
  static constexpr std::uint64_t kSizeMask = (1u << kSizeBits) - 1;
  static constexpr std::uint64_t kLong = 9;

  /// The hash of an id's word and size code (the high bits pick the slot): a multiply by the
  /// golden ratio, whose high bits depend on every bit of the word.
  static std::uint64_t mix(std::uint64_t word, std::uint64_t size_code) {
    const std::uint64_t h = (word ^ (size_code << 59)) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
  }

  static Key key_of(std::string_view id) {
    std::uint64_t word = 0;
    std::uint64_t size_code = kLong;
    if (id.size() <= 8) {
      if (!id.empty()) std::memcpy(&word, id.data(), id.size());
      size_code = id.size();
    } else {
      word = std::hash<std::string_view>{}(id);
    }
    return {word, mix(word, size_code), size_code};
  }

  static std::uint64_t hash_of(const Slot& slot) { return mix(slot.word, slot.tag & kSizeMask); }

  void rehash(std::size_t capacity) {  // capacity: a power of two
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    mask_ = capacity - 1;
    shift_ = 64 - static_cast<unsigned>(std::countr_zero(capacity));
    for (const Slot& slot : old) {
      if (slot.tag == 0) continue;
      std::size_t at = hash_of(slot) >> shift_;
      while (slots_[at].tag != 0) at = (at + 1) & mask_;
      slots_[at] = slot;
    }
  }

  std::vector<Slot> slots_;
  std::vector<std::string_view> ids_;
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
};

}  // namespace wagener::detail
