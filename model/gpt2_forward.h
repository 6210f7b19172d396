// The whole GPT-2 forward pass (Hugging Face's GPT2LMHeadModel in eval mode) and KV-cached
// generation on the weights of model/gpt2_model.h.
//
//   h = wte[ids] + wpe[0..T)
//   per block:  a = LayerNorm(h; ln_1) → qkv = a · c_attn + b, split queries | keys | values
//               → num_heads heads of head_dim = n_embd / num_heads
//               → causal softmax(queries · keysᵀ / √head_dim) · values (the walkthrough's
//                 attn::scaled_dot_product_attention) → merge heads → c_proj → h += ...
//               m = LayerNorm(h; ln_2) → c_fc → gelu_new → mlp c_proj → h += ...
//   LayerNorm(h; ln_f) → logits = h · wteᵀ (lm_headᵀ when untied)
//
// LayerNorm uses the biased variance with eps inside the square root, as torch.nn.LayerNorm.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpt2_model.h"
#include "rng.h"
#include "tensor.h"
#include "walkthrough.h"

namespace attn {

struct Gpt2ForwardOptions {
    // Keep every layer's and head's attn_weights (T × T each): n_layer · n_head · T² floats, so
    // off for long inputs whose attention is not displayed.
    bool keep_attentions = true;
    bool keep_qkv = false;    // queries, keys, values per layer (T, n_embd each)
    bool all_logits = false;  // false: only the last position's logits (1, vocab)
    Eigen::Index top_k = 5;   // next-token candidates from the last position
};

struct Gpt2TopToken {
    int id = 0;
    float prob = 0.0f;  // softmax of the last position's logits
};

struct Gpt2ForwardResult {
    // [layer][head]: (T, T) attn_weights, zeros above the diagonal; empty unless kept.
    std::vector<std::vector<Matrix>> attentions;
    std::vector<Matrix> queries, keys, values;  // [layer] (T, n_embd); empty unless keep_qkv
    Matrix logits;                              // (T, vocab) or (1, vocab) for the last position
    std::vector<Gpt2TopToken> top_tokens;       // highest probability first
};

// Throws AttentionError on empty ids, an id outside [0, vocab_size), more ids than n_positions,
// or weights whose shapes do not match their config.
Gpt2ForwardResult gpt2_forward(const Gpt2Weights& weights, const std::vector<int>& ids,
                               const Gpt2ForwardOptions& options = {});

// The k most probable next tokens from one row of logits (softmax in double), best first.
std::vector<Gpt2TopToken> gpt2_top_tokens(const Eigen::Ref<const RowVector>& logits,
                                          Eigen::Index k);

// --- generation with a kv_cache per layer -----------------------------------------------------
//
// Sampling procedure (temperature > 0): logits / temperature; when top_k > 0 every logit below
// the k-th largest is dropped; probabilities = softmax (in double); one draw u = gen.uniform(0, 1)
// from attn::TorchGenerator seeded with `seed`; the token is the first id whose cumulative
// probability exceeds u · total. This is NOT torch.multinomial's draw sequence; it is tested by
// its properties. temperature == 0 (the default) is greedy: the lowest id among the largest
// logits.
struct Gpt2GenerationOptions {
    Eigen::Index max_new_tokens = 20;
    float temperature = 0.0f;  // 0: greedy
    Eigen::Index top_k = 0;    // 0: all tokens
    std::uint64_t seed = 0;
    int eos_id =
        -1;  // stop after this id is emitted (kept in the output); 50256 for GPT-2, -1 none
};

// One new token from Gpt2Generator::step.
struct Gpt2Step {
    int id = 0;
    // [layer][head]: the new token's attention row (1, tokens so far), i.e. one row per head to
    // append under the ones before.
    std::vector<std::vector<RowVector>> attention_rows;
    bool finished = false;  // eos emitted or max_new_tokens reached
};

// Holds the kv_cache (keys and values per layer, preallocated for prompt + max_new_tokens) and
// the logits of the last fed token. The weights must outlive the generator.
class Gpt2Generator {
public:
    // Validates everything (ids, prompt + max_new_tokens <= n_positions, temperature, top_k)
    // before any work, then runs the prompt in one full pass that fills the cache.
    Gpt2Generator(const Gpt2Weights& weights, const std::vector<int>& prompt,
                  const Gpt2GenerationOptions& options = {});

    // Picks the next token from the last logits, feeds it, returns it with its attention rows.
    // Throws AttentionError when called after finished().
    Gpt2Step step();
    bool finished() const { return finished_; }
    // Back to the state right after the prompt (same seed): generate again without prefilling.
    void restart();

    const std::vector<int>& tokens() const { return tokens_; }  // prompt + generated so far
    // Logits that chose each generated token, one row per step (kept for the full-pass check).
    const std::vector<RowVector>& step_logits() const { return step_logits_; }
    // 2 · n_layer · tokens · n_embd · 4 bytes: keys and values of every cached token.
    std::int64_t cache_bytes() const;

private:
    // Runs one token at position tokens_.size() - 1 through every layer with the cache.
    void feed(int id, std::vector<std::vector<RowVector>>* attention_rows);
    int choose_next();

    const Gpt2Weights& weights_;
    Gpt2GenerationOptions options_;
    TorchGenerator gen_;
    std::vector<Matrix> keys_, values_;  // [layer] (capacity, n_embd): the kv_cache
    std::vector<int> tokens_;
    std::vector<RowVector> step_logits_;
    RowVector last_logits_;
    RowVector prompt_logits_;
    Eigen::Index generated_ = 0;
    Eigen::Index prompt_length_ = 0;
    bool finished_ = false;
};

struct Gpt2GenerationResult {
    std::vector<int> new_ids;  // including the eos id when it stopped there
    std::int64_t cache_bytes = 0;
    // max |cached step logits - one full forward over prompt + new_ids| over the logits rows
    // that chose each new token.
    float max_abs_diff_vs_full_pass = 0.0f;
};

Gpt2GenerationResult gpt2_generate(const Gpt2Weights& weights, const std::vector<int>& prompt,
                                   const Gpt2GenerationOptions& options = {});

// --- test weights ---------------------------------------------------------------------------
//
// Tiny random GPT-2 weights owned in memory, drawn with TorchGenerator(seed) so that
// tests/reference/gpt2_model_reference.py draws the same values. Order and scales (each tensor
// is torch.empty(shape).normal_(mean, std)):
//   wte (vocab, n_embd) std 0.5; wpe (n_positions, n_embd) std 0.3;
//   per block: ln_1.weight mean 1 std 0.1, ln_1.bias std 0.1, c_attn.weight std 0.4,
//   c_attn.bias std 0.1, attn.c_proj.weight std 0.3, attn.c_proj.bias std 0.1,
//   ln_2.weight mean 1 std 0.1, ln_2.bias std 0.1, c_fc.weight std 0.3, c_fc.bias std 0.1,
//   mlp.c_proj.weight std 0.2, mlp.c_proj.bias std 0.1;
//   ln_f.weight mean 1 std 0.1, ln_f.bias std 0.1; lm_head (vocab, n_embd) std 0.5 when untied.
// n_inner = 4 · n_embd. Throws AttentionError for sizes < 1 or n_embd not divisible by n_head.
Gpt2Weights make_random_gpt2_weights(const Gpt2Config& config, std::uint64_t seed = 0);
// The tiny config of the tests: n_layer 2, n_head 2, n_embd 8, n_positions 16, vocab 32.
Gpt2Config tiny_gpt2_config(bool tied = true);
// GPT-2 small's shape: 12 layers, 12 heads, 768, n_positions 1024, vocab 50257.
Gpt2Config gpt2_small_config();
// A copy of the weights rounded to float16 ("F16") or bfloat16 ("BF16") and back to float32,
// round-to-nearest-even as torch's w.half().float() / w.bfloat16().float().
Gpt2Weights round_gpt2_weights(const Gpt2Weights& weights, std::string_view dtype);

// --- a layer as a walkthrough record ----------------------------------------------------------
//
// One layer's attention as a Step, so the views draw, explain and export a real model's heads as
// they do the tutorial's: matrices "layer-L-head-H" (1-based; attn_weights, causal cells
// blocked), and when the forward pass kept queries and keys, each derived by Softmax (divided by
// √head_dim) from operand "masked-H", the MaskedFill of "scores-H" = "queries-H" · "keys-H"ᵀ, so
// hovering a cell gives q·k, /√d and the softmax with the model's own numbers. `tokens` label
// the rows and columns. Throws AttentionError for a layer that was not kept.
Step gpt2_layer_step(const Gpt2ForwardResult& result, const Gpt2Config& config, Eigen::Index layer,
                     const std::vector<std::string>& tokens);

}  // namespace attn
