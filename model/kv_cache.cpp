// The kv_cache: per-head keys and values, preallocated so decoding writes rows in place.
#include <sstream>

#include "module_checks.h"
#include "modules.h"

namespace attn {

KVCache::KVCache(Eigen::Index num_heads_, Eigen::Index capacity_, Eigen::Index head_dim_k_,
                 Eigen::Index head_dim_v_) {
    detail::check_positive(num_heads_, "num_heads");
    detail::check_positive(capacity_, "kv_cache capacity");
    detail::check_positive(head_dim_k_, "head_dim_k");
    detail::check_positive(head_dim_v_, "head_dim_v");
    const std::size_t heads = static_cast<std::size_t>(num_heads_);
    keys.assign(heads, Matrix::Zero(capacity_, head_dim_k_));
    values.assign(heads, Matrix::Zero(capacity_, head_dim_v_));
}

Eigen::Index KVCache::capacity() const { return keys.empty() ? 0 : keys.front().rows(); }

Eigen::Index KVCache::head_dim_k() const { return keys.empty() ? 0 : keys.front().cols(); }

Eigen::Index KVCache::head_dim_v() const { return values.empty() ? 0 : values.front().cols(); }

std::size_t KVCache::bytes() const {
    const Eigen::Index floats = (head_dim_k() + head_dim_v()) * num_heads() * tokens;
    return static_cast<std::size_t>(floats) * sizeof(float);
}

void KVCache::append(const Heads& new_keys, const Heads& new_values) {
    if (static_cast<Eigen::Index>(new_keys.size()) != num_heads() ||
        static_cast<Eigen::Index>(new_values.size()) != num_heads()) {
        std::ostringstream msg;
        msg << "kv_cache holds " << num_heads() << " heads but " << new_keys.size()
            << " key heads and " << new_values.size()
            << " value heads were given: append one key and one value matrix per head";
        throw AttentionError(msg.str());
    }
    if (new_keys.empty()) {
        return;
    }
    const Eigen::Index n = new_keys.front().rows();
    for (std::size_t h = 0; h < new_keys.size(); ++h) {
        if (new_keys[h].rows() != n || new_values[h].rows() != n ||
            new_keys[h].cols() != head_dim_k() || new_values[h].cols() != head_dim_v()) {
            std::ostringstream msg;
            msg << "kv_cache head " << h << " expects keys (n, " << head_dim_k()
                << ") and values (n, " << head_dim_v() << ") with the same n, but got ("
                << new_keys[h].rows() << ", " << new_keys[h].cols() << ") and ("
                << new_values[h].rows() << ", " << new_values[h].cols()
                << "): split the new tokens with the module's num_heads";
            throw AttentionError(msg.str());
        }
    }
    if (tokens + n > capacity()) {
        std::ostringstream msg;
        msg << "kv_cache is full: it holds " << tokens << " of " << capacity()
            << " tokens and cannot take " << n
            << " more: create the cache with capacity >= " << tokens + n;
        throw AttentionError(msg.str());
    }
    for (std::size_t h = 0; h < new_keys.size(); ++h) {
        keys[h].middleRows(tokens, n) = new_keys[h];
        values[h].middleRows(tokens, n) = new_values[h];
    }
    tokens += n;
}

Matrix KVCache::keys_of(Eigen::Index head) const {
    if (head < 0 || head >= num_heads()) {
        std::ostringstream msg;
        msg << "kv_cache has no head " << head << ": heads are 0 .. " << num_heads() - 1;
        throw AttentionError(msg.str());
    }
    return keys[static_cast<std::size_t>(head)].topRows(tokens);
}

Matrix KVCache::values_of(Eigen::Index head) const {
    if (head < 0 || head >= num_heads()) {
        std::ostringstream msg;
        msg << "kv_cache has no head " << head << ": heads are 0 .. " << num_heads() - 1;
        throw AttentionError(msg.str());
    }
    return values[static_cast<std::size_t>(head)].topRows(tokens);
}

}  // namespace attn
