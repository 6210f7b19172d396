// The matrices and tokens the heatmap suites draw: the tutorial's weights, causal scores with
// their mask, signed scores for the diverging map and English-over-Chinese cross-attention.
#pragma once

#include <QString>
#include <QStringList>
#include <cmath>
#include <limits>

#include "model/examples.h"
#include "model/tensor.h"

using attn::Matrix;

inline const QStringList kTokens = {"Your", "journey", "starts", "with", "one", "step"};
inline const QStringList kChineseTokens = {"你的", "旅程", "始于", "一步"};
inline const QString kMinusInfinity = QStringLiteral("\u2212\u221E");
inline constexpr float kInf = std::numeric_limits<float>::infinity();

// Plain Eigen, independent of model/ops: softmax over each row, max subtracted first.
inline Matrix softmaxRows(const Matrix& scores) {
    Matrix out(scores.rows(), scores.cols());
    for (Eigen::Index r = 0; r < scores.rows(); ++r) {
        const float m = scores.row(r).maxCoeff();
        float sum = 0.0f;
        for (Eigen::Index c = 0; c < scores.cols(); ++c) {
            out(r, c) = std::exp(scores(r, c) - m);
            sum += out(r, c);
        }
        out.row(r) /= sum;
    }
    return out;
}

// The tutorial's In [5]: attn_weights = softmax(inputs @ inputs.T, dim=-1).
inline Matrix tutorialWeights() {
    const Matrix inputs = attn::tutorial_inputs().embeddings;
    const Matrix scores = inputs * inputs.transpose();
    return softmaxRows(scores);
}

// inputs @ inputs.T with the future (j > i) filled with -inf, as masked_fill does.
inline Matrix causalScores() {
    const Matrix inputs = attn::tutorial_inputs().embeddings;
    Matrix scores = inputs * inputs.transpose();
    for (Eigen::Index r = 0; r < scores.rows(); ++r)
        for (Eigen::Index c = r + 1; c < scores.cols(); ++c) scores(r, c) = -kInf;
    return scores;
}

inline attn::BoolMatrix causalBlocked(Eigen::Index t) {
    attn::BoolMatrix blocked(t, t);
    for (Eigen::Index r = 0; r < t; ++r)
        for (Eigen::Index c = 0; c < t; ++c) blocked(r, c) = c > r;
    return blocked;
}

// Signed scores: centred embeddings, so dot products fall on both sides of 0.
inline Matrix signedScores() {
    Matrix inputs = attn::tutorial_inputs().embeddings;
    const attn::RowVector mean = inputs.colwise().mean();
    inputs.rowwise() -= mean;
    return inputs * inputs.transpose() * 10.0f;
}

// Cross-attention: English queries over the Chinese source keys, softmax(q kᵀ / √3).
inline Matrix crossWeights() {
    const Matrix queries = attn::tutorial_inputs().embeddings;
    const Matrix keys = attn::cross_attention_source().embeddings;
    const Matrix scores = queries * keys.transpose() / std::sqrt(3.0f);
    return softmaxRows(scores);
}
