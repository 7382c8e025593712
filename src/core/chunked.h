// A growable sequence whose elements never move (as std::deque's), stored in chunks of 4,096 elements. The engine
// keeps one element per job (its state; the round model's jobs and specs) for a million jobs: std::deque gives each
// element of more than 512 bytes a heap block of its own, so the three per-job records of a run interleave in the
// heap and freeing one of them returns no page to the system; chunks of megabytes are mapped and unmapped whole.
// A full chunk whose elements are read no more (a million jobs' finished records) can be dropped: drop_chunk frees it
// while the others stay where they are; reading an element of a dropped chunk is undefined, as for a freed block.
#pragma once
#include <algorithm>
#include <cstddef>
#include <iterator>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace rm {

template <class T>
class Chunked {
  static constexpr std::size_t kShift = 12, kChunk = std::size_t{1} << kShift, kMask = kChunk - 1;

 public:
  static constexpr std::size_t chunk_size = kChunk;  // elements [k * chunk_size, (k + 1) * chunk_size) are chunk k
  Chunked() = default;
  Chunked(const Chunked&) = delete;
  Chunked& operator=(const Chunked&) = delete;
  Chunked(Chunked&& o) noexcept : chunks_(std::move(o.chunks_)), size_(o.size_) { o.size_ = 0; }
  Chunked& operator=(Chunked&& o) noexcept {
    if (this != &o) {
      clear();
      chunks_ = std::move(o.chunks_);
      size_ = o.size_;
      o.size_ = 0;
    }
    return *this;
  }
  ~Chunked() { clear(); }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return chunks_[i >> kShift].get()[i & kMask]; }
  const T& operator[](std::size_t i) const { return chunks_[i >> kShift].get()[i & kMask]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }

  template <class... A>
  T& emplace_back(A&&... a) {
    if ((size_ & kMask) == 0 && (size_ >> kShift) == chunks_.size())
      chunks_.emplace_back(static_cast<T*>(::operator new(kChunk * sizeof(T), std::align_val_t{alignof(T)})));
    T* p = new (chunks_[size_ >> kShift].get() + (size_ & kMask)) T(std::forward<A>(a)...);
    ++size_;
    return *p;
  }

  void clear() {
    for (std::size_t i = size_; i-- > 0;)
      if (chunks_[i >> kShift]) (*this)[i].~T();
    size_ = 0;
    for (auto& c : chunks_) c.reset();
    chunks_.clear();
  }

  // Destroys the elements of chunk k, full and not dropped before, and frees its memory.
  void drop_chunk(std::size_t k) {
    if ((k + 1) * kChunk > size_ || !chunks_[k]) return;
    T* p = chunks_[k].get();
    for (std::size_t i = 0; i < kChunk; ++i) p[i].~T();
    chunks_[k].reset();
  }
  std::size_t dropped_chunks() const {
    return static_cast<std::size_t>(std::count_if(chunks_.begin(), chunks_.end(), [](const auto& c) { return !c; }));
  }

  template <class Owner, class V>
  class Iter {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = V*;
    using reference = V&;
    Iter() = default;
    Iter(Owner* c, std::size_t i) : c_(c), i_(i) {}
    V& operator*() const { return (*c_)[i_]; }
    V* operator->() const { return &(*c_)[i_]; }
    V& operator[](difference_type n) const { return (*c_)[i_ + n]; }
    Iter& operator++() { return ++i_, *this; }
    Iter operator++(int) { Iter t = *this; ++i_; return t; }
    Iter& operator--() { return --i_, *this; }
    Iter operator--(int) { Iter t = *this; --i_; return t; }
    Iter& operator+=(difference_type n) { return i_ += n, *this; }
    Iter& operator-=(difference_type n) { return i_ -= n, *this; }
    Iter operator+(difference_type n) const { return {c_, i_ + n}; }
    Iter operator-(difference_type n) const { return {c_, i_ - n}; }
    difference_type operator-(const Iter& o) const { return static_cast<difference_type>(i_) - static_cast<difference_type>(o.i_); }
    bool operator==(const Iter& o) const { return i_ == o.i_; }
    bool operator!=(const Iter& o) const { return i_ != o.i_; }
    bool operator<(const Iter& o) const { return i_ < o.i_; }

   private:
    Owner* c_ = nullptr;
    std::size_t i_ = 0;
  };
  using iterator = Iter<Chunked, T>;
  using const_iterator = Iter<const Chunked, const T>;
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, size_}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  struct Free {
    void operator()(T* p) const { ::operator delete(p, std::align_val_t{alignof(T)}); }
  };
  std::vector<std::unique_ptr<T, Free>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace rm
