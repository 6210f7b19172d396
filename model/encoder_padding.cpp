// padding_check (model/encoder_views.h): a padded batch against each sequence alone. A file of its
// own so that the views' record functions link without the forward pass.
#include <algorithm>
#include <cmath>

#include "encoder_views.h"

namespace attn {

PaddingCheck padding_check(const TransformerWeights& weights,
                           const std::vector<std::vector<int>>& ids,
                           const std::vector<std::vector<int>>& token_type_ids, int pad_id) {
    ModelForwardOptions options;
    options.keep_attentions = true;
    PaddingCheck check;
    check.batch = model_forward_padded(weights, ids, token_type_ids, pad_id, options);
    for (std::size_t b = 0; b < ids.size(); ++b) {
        ModelForwardOptions alone = options;
        if (b < token_type_ids.size()) alone.token_type_ids = token_type_ids[b];
        check.alone.push_back(model_forward(weights, ids[b], alone));
        const auto n = static_cast<Eigen::Index>(ids[b].size());
        const ModelForwardResult& padded = check.batch.results[b];
        float diff = 0.0f, padding = 0.0f;
        for (std::size_t l = 0; l < padded.attentions.size(); ++l)
            for (std::size_t h = 0; h < padded.attentions[l].size(); ++h) {
                const Matrix& in_batch = padded.attentions[l][h];
                const Matrix& by_itself = check.alone[b].attentions[l][h];
                diff = std::max(diff,
                                (in_batch.topLeftCorner(n, n) - by_itself).cwiseAbs().maxCoeff());
                if (in_batch.cols() > n)
                    padding = std::max(
                        padding,
                        in_batch.topRightCorner(n, in_batch.cols() - n).cwiseAbs().maxCoeff());
            }
        check.max_abs_diff.push_back(diff);
        check.padding_weight.push_back(padding);
    }
    return check;
}

}  // namespace attn
