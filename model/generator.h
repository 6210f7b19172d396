// Generation through the kv_cache for any family of the core (model/transformer.h): the prompt
// in one full pass fills one KVCache per layer (num_kv_heads heads), then each new token runs
// through every layer as one query against the cache (attend_one_query, model/decode_attention.h,
// the same single-query attention every decode path uses).
//
// Sampling (temperature > 0): logits / temperature; when top_k > 0 every logit below the k-th
// largest is dropped; probabilities = softmax (in double); one draw u = gen.uniform(0, 1) from
// attn::TorchGenerator seeded with `seed`; the token is the first id whose cumulative probability
// exceeds u · total. This is NOT torch.multinomial's draw sequence; it is tested by its
// properties. temperature == 0 (the default) is greedy: the lowest id among the largest logits.
#pragma once

#include <cstdint>
#include <vector>

#include "decode_attention.h"
#include "rng.h"
#include "tensor.h"
#include "transformer.h"

namespace attn {

struct GenerationOptions {
    Eigen::Index max_new_tokens = 20;
    float temperature = 0.0f;  // 0: greedy
    Eigen::Index top_k = 0;    // 0: all tokens
    std::uint64_t seed = 0;
    int eos_id = -1;  // stop after this id is emitted (kept in the output); -1: none
};

// One new token from Generator::step.
struct GenerationStep {
    int id = 0;
    // [layer][head]: the new token's attention row (1, tokens so far), i.e. one row per head to
    // append under the ones before.
    std::vector<std::vector<RowVector>> attention_rows;
    bool finished = false;  // eos emitted or max_new_tokens reached
};

// Holds the kv_cache (one KVCache per layer, preallocated for prompt + max_new_tokens) and the
// logits of the last fed token. The weights must outlive the generator.
class Generator {
public:
    // Validates everything (ids, prompt + max_new_tokens <= max_positions, temperature, top_k)
    // before any work, then runs the prompt in one full pass that fills the cache.
    Generator(const TransformerWeights& weights, const std::vector<int>& prompt,
              const GenerationOptions& options = {});

    // Picks the next token from the last logits, feeds it, returns it with its attention rows.
    // Throws AttentionError when called after finished().
    GenerationStep step();
    bool finished() const { return finished_; }
    // Back to the state right after the prompt (same seed): generate again without prefilling.
    void restart();

    const std::vector<int>& tokens() const { return tokens_; }  // prompt + generated so far
    Eigen::Index prompt_length() const { return prompt_length_; }
    // Logits that chose each generated token, one row per step.
    const std::vector<RowVector>& step_logits() const { return step_logits_; }
    // Keys and values of every cached token, every layer: the sum of KVCache::bytes().
    std::int64_t cache_bytes() const;

private:
    // Runs one token at position tokens_.size() - 1 through every layer with the cache.
    void feed(int id, std::vector<std::vector<RowVector>>* attention_rows);
    int choose_next();

    const TransformerWeights& weights_;
    GenerationOptions options_;
    TorchGenerator gen_;
    std::vector<KVCache> kv_cache_;   // [layer]
    SingleQueryAttention attention_;  // reused by every step
    std::vector<int> tokens_;
    std::vector<RowVector> step_logits_;
    RowVector last_logits_;
    RowVector prompt_logits_;
    Eigen::Index generated_ = 0;
    Eigen::Index prompt_length_ = 0;
    bool finished_ = false;
};

// max |logits that chose each new token - the same rows of one full forward pass over every
// token fed|: how far the cached path drifted from recomputing everything (float rounding only).
float max_abs_diff_vs_full_pass(const TransformerWeights& weights, const Generator& generator);

struct GenerationResult {
    std::vector<int> new_ids;  // including the eos id when it stopped there
    std::int64_t cache_bytes = 0;
    float max_abs_diff_vs_full_pass = 0.0f;
};

// Generates to the end and checks the result against one full pass.
GenerationResult generate(const TransformerWeights& weights, const std::vector<int>& prompt,
                          const GenerationOptions& options = {});

}  // namespace attn
