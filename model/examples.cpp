#include "examples.h"

namespace attn {

Sequence tutorial_inputs() {
    Sequence s;
    s.tokens = {"Your", "journey", "starts", "with", "one", "step"};
    s.embeddings.resize(6, 3);
    s.embeddings << 0.43f, 0.15f, 0.89f,  // Your     (x^1)
        0.55f, 0.87f, 0.66f,              // journey  (x^2)
        0.57f, 0.85f, 0.64f,              // starts   (x^3)
        0.22f, 0.58f, 0.33f,              // with     (x^4)
        0.77f, 0.25f, 0.10f,              // one      (x^5)
        0.05f, 0.80f, 0.55f;              // step     (x^6)
    return s;
}

Sequence cross_attention_source() {
    Sequence s;
    s.tokens = {"你的", "旅程", "始于", "一步"};
    s.embeddings.resize(4, 3);
    s.embeddings << 0.41f, 0.18f, 0.85f,  // 你的  your
        0.52f, 0.90f, 0.61f,              // 旅程  journey
        0.60f, 0.79f, 0.58f,              // 始于  starts with
        0.12f, 0.70f, 0.47f;              // 一步  one step
    return s;
}

}  // namespace attn
