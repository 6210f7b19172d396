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

// One byte read per page, so the page faults happen now.
void faultInPages(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    volatile unsigned char sink = 0;
    for (std::size_t i = 0; i < bytes; i += 4096) sink = p[i];
    if (bytes > 0) sink = p[bytes - 1];
    (void)sink;
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

WeightCopies::WeightCopies(std::size_t bytes, bool fileMapping)
    : arena_(fileMapping ? WeightArena::create(bytes) : nullptr) {}

const void* WeightCopies::place(const void* data, std::size_t bytes) {
    const void*& copy = copies_[data];
    if (copy) return copy;
    void* to = arena_ && bytes > 0 ? arena_->take(bytes) : nullptr;
    if (!to) {
        faultInPages(data, bytes);
        return copy = data;
    }
    std::memcpy(to, data, bytes);
#ifdef __linux__
    // A page shared with a neighbouring tensor is left alone.
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    const auto begin = reinterpret_cast<std::uintptr_t>(data);
    const std::uintptr_t first = (begin + page - 1) / page * page;
    const std::uintptr_t last = (begin + bytes) / page * page;
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
#endif
    return copy = to;
}

}  // namespace attn
