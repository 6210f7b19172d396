// Memory for a loaded model's weights, in 2 MB pages where Linux grants them (transparent huge
// pages, asked for with madvise). Generating a token reads every weight once, and with 4 KB pages
// every 4 KB of it starts with a walk of the page tables: measured on Zen 4, one thread, a
// 4096 × 4096 Q4_K product out of cache ran at 11.1 GB/s on 4 KB pages and 14.0 on 2 MB pages,
// Q8_0 1.13× and F32 1.04× faster. The file's own mapping cannot have them (the page cache of a
// file is kept in 4 KB pages), so the loaders copy each tensor in and give the file's pages
// back (WeightCopies): memory stays about the file's size.
#pragma once

#include <cstddef>
#include <memory>
#include <unordered_map>

namespace attn {

class WeightArena {
public:
    // Room for `bytes`, reserved but not yet backed by memory; nullptr where the system gives no
    // such region, or when `bytes` is more than 0.8 of the memory available (a mapped file can be
    // paged out under pressure, a copy cannot): the loaders then keep reading the file's mapping.
    static std::shared_ptr<WeightArena> create(std::size_t bytes);
    ~WeightArena();
    WeightArena(const WeightArena&) = delete;
    WeightArena& operator=(const WeightArena&) = delete;

    // The next `bytes`, 64-byte aligned; nullptr past the capacity.
    void* take(std::size_t bytes);
    std::size_t capacity() const { return capacity_; }
    std::size_t used() const { return used_; }
    // The first byte: 2 MB aligned, as a huge page must be.
    const void* base() const { return start_; }

private:
    WeightArena() = default;
    void* mapping_ = nullptr;
    std::size_t mappingBytes_ = 0;
    char* start_ = nullptr;
    std::size_t capacity_ = 0;
    std::size_t used_ = 0;
};

// How a loader reads the tensors it uses as they lie in a file: each one copied into the arena
// once (two roles reading one tensor, as tied embeddings do, share the copy), and the mapping's
// pages wholly inside it dropped from this process afterwards (the page cache keeps them), so the
// copy does not double the memory. Without an arena (bytes given in memory, no room, not Linux)
// a tensor is read where it lies, its pages faulted in now, under the load's progress, and not
// inside the first forward pass (whose elapsed time would count them).
class WeightCopies {
public:
    // Room for `bytes` of tensors; an arena only when `fileMapping`: the tensors lie in a
    // read-only mapping of a file, whose pages may be given back (never someone's own memory).
    WeightCopies(std::size_t bytes, bool fileMapping);
    // Where the weights read the tensor of `bytes` at `data`.
    const void* place(const void* data, std::size_t bytes);
    // The copies' memory, to keep alive as long as the weights; null without an arena.
    std::shared_ptr<const void> owner() const { return arena_; }

private:
    std::shared_ptr<WeightArena> arena_;
    std::unordered_map<const void*, const void*> copies_;
};

}  // namespace attn
