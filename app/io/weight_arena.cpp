#include "app/io/weight_arena.h"

#include <QFile>
#include <cstdint>
#include <cstring>

#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace attn {

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kAlign = 64;

std::size_t roundUp(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// /proc/meminfo's MemAvailable in bytes (the memory that can be had without swapping, the page
// cache included); 0 when unknown.
std::size_t availableMemory() {
    QFile meminfo(QStringLiteral("/proc/meminfo"));
    if (!meminfo.open(QIODevice::ReadOnly | QIODevice::Text)) return 0;
    // readAll: a /proc file reports size 0, so atEnd() is true before the first line.
    for (const QByteArray& line : meminfo.readAll().split('\n')) {
        if (!line.startsWith("MemAvailable:")) continue;
        const QList<QByteArray> fields = line.simplified().split(' ');  // name, number, "kB"
        bool ok = false;
        const qulonglong kb = fields.size() >= 2 ? fields[1].toULongLong(&ok) : 0;
        return ok ? static_cast<std::size_t>(kb) * 1024 : 0;
    }
    return 0;
}

}  // namespace

std::shared_ptr<WeightArena> WeightArena::create(std::size_t bytes) {
#ifdef __linux__
    // A file's mapping can be paged out and read again under memory pressure, a copy cannot
    // (without swap): a model that would take most of the free memory stays mapped.
    if (bytes == 0 || bytes > availableMemory() / 10 * 8) return nullptr;
    // One huge page more than asked, so the start can move up to a 2 MB boundary. Reserved
    // without backing (MAP_NORESERVE): pages are given as they are first written.
    const std::size_t mapped = roundUp(bytes, kHugePage) + kHugePage;
    void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    std::shared_ptr<WeightArena> arena(new WeightArena);
    arena->mapping_ = p;
    arena->mappingBytes_ = mapped;
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    arena->start_ = static_cast<char*>(p) + (roundUp(at, kHugePage) - at);
    arena->capacity_ = bytes;
    // Advice only: where transparent huge pages are off, the arena is ordinary memory.
    madvise(arena->start_, roundUp(bytes, kHugePage), MADV_HUGEPAGE);
    return arena;
#else
    (void)bytes;
    return nullptr;
#endif
}

WeightArena::~WeightArena() {
#ifdef __linux__
    if (mapping_) munmap(mapping_, mappingBytes_);
#endif
}

void* WeightArena::take(std::size_t bytes) {
    const std::size_t at = roundUp(used_, kAlign);
    if (at > capacity_ || bytes > capacity_ - at) return nullptr;
    used_ = at + bytes;
    return start_ + at;
}

const void* moveIntoArena(WeightArena* arena, const void* data, std::size_t bytes) {
    void* copy = arena && bytes > 0 ? arena->take(bytes) : nullptr;
    if (!copy) return data;
    std::memcpy(copy, data, bytes);
#ifdef __linux__
    // The mapping's pages wholly inside the tensor, given back: the file stays in the page cache,
    // no longer counted in this process. A page shared with a neighbour is left alone.
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    const std::uintptr_t first = (begin + page - 1) / page * page;
    const std::uintptr_t last = (begin + bytes) / page * page;
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
#endif
    return copy;
}

}  // namespace attn
