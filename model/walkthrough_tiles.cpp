// FlashAttention's tiles as a step (model/walkthrough_chapters.h): the walkthrough's chapter and
// explore mode's Tiles tab.
#include <algorithm>
#include <cmath>
#include <optional>

#include "number_format.h"
#include "ops.h"
#include "walkthrough_build.h"
#include "walkthrough_chapters.h"

namespace attn {

using namespace walk;

namespace {

void check_tile_inputs(const Matrix& queries, const Matrix& keys, const Matrix& values,
                       const std::vector<std::string>& tokens, Eigen::Index query_tile,
                       Eigen::Index key_tile) {
    const Eigen::Index t = queries.rows();
    if (keys.rows() != t || values.rows() != t || keys.cols() != queries.cols())
        throw AttentionError(
            "tiles need queries (T, d), keys (T, d) and values (T, d_v) of one "
            "sequence, got (" +
            count(queries.rows()) + ", " + count(queries.cols()) + "), (" + count(keys.rows()) +
            ", " + count(keys.cols()) + ") and (" + count(values.rows()) + ", " +
            count(values.cols()) + "): pass one head's projections of the same tokens");
    if (static_cast<Eigen::Index>(tokens.size()) != t)
        throw AttentionError("tiles got " + count(static_cast<Eigen::Index>(tokens.size())) +
                             " tokens for " + count(t) + " query rows: give one token per row");
    if (query_tile < 1 || key_tile < 1)
        throw AttentionError("tile sizes must be at least 1, got " + count(query_tile) + " × " +
                             count(key_tile) + ": choose tiles of 1 or more tokens");
}

std::string tiles_snippet(Eigen::Index bq, Eigen::Index bk) {
    return "q_tile, k_tile = " + count(bq) + ", " + count(bk) + R"(
context_vecs = torch.empty(T, values.shape[1])
for i0 in range(0, T, q_tile):                         # a tile of queries
    q = queries[i0:i0 + q_tile]
    m = torch.full((len(q),), -torch.inf)              # running maximum
    l = torch.zeros(len(q))                            # running sum of exp
    o = torch.zeros(len(q), values.shape[1])           # unnormalised output
    for j0 in range(0, i0 + len(q), k_tile):           # tiles above the diagonal: skipped
        s = q @ keys[j0:j0 + k_tile].T / keys.shape[-1]**0.5
        rows, cols = torch.arange(i0, i0 + len(q))[:, None], torch.arange(j0, j0 + s.shape[1])
        s = s.masked_fill(cols > rows, -torch.inf)     # the causal mask inside the tile
        m_new = torch.maximum(m, s.max(dim=-1).values)
        scale = torch.exp(m - m_new)                   # rescales what was summed so far
        p = torch.exp(s - m_new[:, None])
        l = l * scale + p.sum(dim=-1)
        o = o * scale[:, None] + p @ values[j0:j0 + k_tile]
        m = m_new
    context_vecs[i0:i0 + q_tile] = o / l[:, None]      # equals step 11's context vectors)";
}

// "q 1–2", "q 3": the tokens (1-based) of each tile of `size` along a side of t tokens.
std::vector<std::string> tile_labels(const std::string& side, Eigen::Index t, Eigen::Index size) {
    std::vector<std::string> labels;
    for (Eigen::Index from = 0; from < t; from += size) {
        const Eigen::Index to = std::min(t, from + size);
        labels.push_back(side + " " +
                         (to - from == 1 ? count(from + 1) : count(from + 1) + "–" + count(to)));
    }
    return labels;
}

// One tile of the online softmax for its query rows: the new running maximum, the factor that
// rescales what was summed against the old one, and the running sum and output.
struct OnlineTile {
    Matrix max, scale, sum, output;
};

// scores: (rows, cols) scaled, blocked cells filled with −∞; values: the tile's (cols, d_v);
// m_run, l_run: (rows, 1) and o_run: (rows, d_v) so far.
OnlineTile online_tile(const Matrix& scores, const BoolMatrix& blocked, const Matrix& values,
                       const Matrix& m_run, const Matrix& l_run, const Matrix& o_run) {
    const Eigen::Index rows = scores.rows(), cols = scores.cols(), d_out = values.cols();
    OnlineTile next{Matrix(rows, 1), Matrix(rows, 1), Matrix(rows, 1), Matrix(rows, d_out)};
    for (Eigen::Index i = 0; i < rows; ++i) {
        next.max(i, 0) = std::max(m_run(i, 0), scores.row(i).maxCoeff());
        next.scale(i, 0) = std::exp(m_run(i, 0) - next.max(i, 0));  // exp(−∞) = 0 at first
        float sum = 0.0f;
        RowVector acc = RowVector::Zero(d_out);
        for (Eigen::Index j = 0; j < cols; ++j) {
            if (blocked(i, j)) continue;
            const float p = std::exp(scores(i, j) - next.max(i, 0));
            sum += p;
            acc += p * values.row(j);
        }
        next.sum(i, 0) = l_run(i, 0) * next.scale(i, 0) + sum;
        next.output.row(i) = o_run.row(i) * next.scale(i, 0) + acc;
    }
    return next;
}

// The counts the text states, and the memory of the scores at a real length.
void add_tile_totals(StepBuilder& b, Eigen::Index bq, Eigen::Index bk, Eigen::Index num_tiles,
                     Eigen::Index tiles_done, Eigen::Index num_skipped) {
    // Memory of the scores at a real length: the full (T, T) matrix against the tiled
    // path's running maximum and sum per query plus one tile, in float32.
    const double big_t = 4096.0;
    const double scores_bytes = big_t * big_t * 4.0;
    const double tiled_bytes = (2.0 * big_t + static_cast<double>(bq * bk)) * 4.0;
    b.fact("tiles_skipped", static_cast<double>(num_skipped));
    b.fact("scores_bytes_4096", scores_bytes);
    b.fact("tiled_bytes_4096", tiled_bytes);
    b.arg("query_tile", count(bq));
    b.arg("key_tile", count(bk));
    b.arg("num_tiles", count(num_tiles));
    b.arg("tiles_computed", count(tiles_done));
    b.arg("tiles_skipped", count(num_skipped));
    b.arg("big_t", "4096");
    b.arg("scores_bytes", format_shortest(scores_bytes));
    b.arg("tiled_bytes", format_shortest(tiled_bytes));
    b.arg("memory_ratio", format_shortest(std::round(scores_bytes / tiled_bytes)));
}

}  // namespace

// The walkthrough's "flash-tiles" is this on step 11's causal attention; the (T, T) scores are
// never stored, only a running maximum m, sum ℓ and unnormalised output o per query row (the
// engine's fast path, fast_attention.cpp).
Step tiles_step(const Matrix& queries, const Matrix& keys, const Matrix& values,
                const std::vector<std::string>& tokens, bool causal_mask_on,
                Eigen::Index query_tile, Eigen::Index key_tile, int number, const std::string& id) {
    check_tile_inputs(queries, keys, values, tokens, query_tile, key_tile);
    const Eigen::Index t = queries.rows();
    const std::vector<std::string>& tok = tokens;
    const Eigen::Index d_out = values.cols();
    const std::vector<std::string> out_dims = numbered("", d_out);
    const std::vector<std::string> key_dims = numbered("", queries.cols());
    const float sqrt_dk = std::sqrt(static_cast<float>(queries.cols()));
    // Checks the inputs (empty, NaN) and gives the reference the tiles must reproduce.
    const BoolMatrix future =
        causal_mask_on ? causal_mask(t, t) : BoolMatrix(BoolMatrix::Constant(t, t, false));
    AttentionOptions causal_options;
    causal_options.blocked = future;
    const AttentionResult causal =
        scaled_dot_product_attention(queries, keys, values, causal_options);
    const Eigen::Index bq = query_tile;
    const Eigen::Index bk = key_tile;
    const Eigen::Index n_qt = (t + bq - 1) / bq;
    const Eigen::Index n_kt = (t + bk - 1) / bk;
    const Matrix& qs = queries;
    const Matrix& ks = keys;
    const Matrix& vs = values;
    StepBuilder b(number, id, tiles_snippet(bq, bk));
    b.operand("causal-context", "z", causal.context, tok, out_dims, MatrixKind::Context);
    const std::vector<std::string> qt_labels = tile_labels("q", t, bq);
    const std::vector<std::string> kt_labels = tile_labels("k", t, bk);
    // Causal: tiles whose every key comes after every query are skipped.
    BoolMatrix skipped(n_qt, n_kt);
    for (Eigen::Index r = 0; r < n_qt; ++r)
        for (Eigen::Index c = 0; c < n_kt; ++c)
            skipped(r, c) = causal_mask_on && c * bk > std::min(t, (r + 1) * bq) - 1;
    const Eigen::Index num_skipped = skipped.count();
    Matrix tile_map = Matrix::Zero(n_qt, n_kt);
    Matrix finished_output(0, d_out);
    Matrix finished_sum(0, 1);
    Matrix tiled_context(0, d_out);
    float max_abs_diff = 0.0f;
    int frame = 0;
    Eigen::Index tiles_done = 0;
    for (Eigen::Index r = 0; r < n_qt; ++r) {
        const Eigen::Index i0 = r * bq;
        const Eigen::Index rows = std::min(t, i0 + bq) - i0;
        const std::vector<std::string> row_tok(tok.begin() + i0, tok.begin() + i0 + rows);
        Matrix m_run = Matrix::Constant(rows, 1, kNegInf);
        Matrix l_run = Matrix::Zero(rows, 1);
        Matrix o_run = Matrix::Zero(rows, d_out);
        for (Eigen::Index c = 0; c < n_kt; ++c) {
            if (skipped(r, c)) continue;
            const Eigen::Index j0 = c * bk;
            const Eigen::Index cols = std::min(t, j0 + bk) - j0;
            const std::vector<std::string> col_tok(tok.begin() + j0, tok.begin() + j0 + cols);
            const BoolMatrix tile_blocked = future.block(i0, j0, rows, cols);
            const Matrix s =
                masked_fill(causal.scaled.block(i0, j0, rows, cols), tile_blocked, kNegInf);
            const OnlineTile next =
                online_tile(s, tile_blocked, vs.middleRows(j0, cols), m_run, l_run, o_run);
            const Matrix& m_new = next.max;
            const Matrix& scale = next.scale;
            const Matrix& l_new = next.sum;
            const Matrix& o_new = next.output;
            auto in_frame = [&](StepMatrix& m) -> StepMatrix& {
                m.frame = frame;
                m.row_offset = i0;
                return m;
            };
            in_frame(b.operand("tile-queries", "q", qs.middleRows(i0, rows), row_tok, key_dims,
                               MatrixKind::Projections));
            in_frame(b.operand("tile-keys", "k", ks.middleRows(j0, cols), col_tok, key_dims,
                               MatrixKind::Projections))
                .row_offset = j0;
            in_frame(b.operand("tile-values", "v", vs.middleRows(j0, cols), col_tok, out_dims,
                               MatrixKind::Projections))
                .row_offset = j0;
            in_frame(b.operand("previous-max", "m", m_run, row_tok, {"m"}, MatrixKind::Scores));
            in_frame(b.operand("previous-sum", "ℓ", l_run, row_tok, {"ℓ"}, MatrixKind::Scores));
            in_frame(
                b.operand("previous-output", "o", o_run, row_tok, out_dims, MatrixKind::Context));
            tile_map =
                (tile_map.array() > 0.0f).select(Matrix::Constant(n_qt, n_kt, 0.5f), tile_map);
            tile_map(r, c) = 1.0f;
            StepMatrix& map =
                masked(b.add("tile-map", "T", tile_map, qt_labels, kt_labels, MatrixKind::Weights),
                       skipped, 0.0f);
            map.derivation = Derivation::TileMap;
            map.frame = frame;
            StepMatrix& ts = in_frame(
                masked(derive(b.add("tile-scores", "ω̃", s, row_tok, col_tok, MatrixKind::Scores),
                              Derivation::DotProduct, "tile-queries", "tile-keys", sqrt_dk),
                       tile_blocked, kNegInf));
            ts.col_offset = j0;
            in_frame(derive(b.add("running-max", "m", m_new, row_tok, {"m"}, MatrixKind::Scores),
                            Derivation::RunningMax, "tile-scores", "previous-max"));
            in_frame(derive(
                b.add("rescale", "s", scale, row_tok, {"exp(m_old − m)"}, MatrixKind::Weights),
                Derivation::RescaleFactor, "previous-max", "running-max"));
            StepMatrix& ls = in_frame(
                derive(b.add("running-sum", "ℓ", l_new, row_tok, {"ℓ"}, MatrixKind::Scores),
                       Derivation::RunningSum, "tile-scores", "previous-sum"));
            ls.parts = {"rescale", "running-max"};
            StepMatrix& os = in_frame(
                derive(b.add("running-output", "o", o_new, row_tok, out_dims, MatrixKind::Context),
                       Derivation::RunningOutput, "tile-scores", "tile-values"));
            os.parts = {"previous-output", "rescale", "running-max"};
            m_run = m_new;
            l_run = l_new;
            o_run = o_new;
            ++tiles_done;
            // The last tile of a query tile: its rows of the context vectors are done.
            const bool last = c + 1 >= n_kt || skipped(r, c + 1);
            if (last) {
                const Eigen::Index done = i0 + rows;
                finished_output.conservativeResize(done, d_out);
                finished_output.bottomRows(rows) = o_run;
                finished_sum.conservativeResize(done, 1);
                finished_sum.bottomRows(rows) = l_run;
                tiled_context.conservativeResize(done, d_out);
                tiled_context.bottomRows(rows) = o_run.array().colwise() / l_run.col(0).array();
                max_abs_diff = std::max(max_abs_diff, (tiled_context.bottomRows(rows) -
                                                       causal.context.middleRows(i0, rows))
                                                          .cwiseAbs()
                                                          .maxCoeff());
            }
            if (tiled_context.rows() > 0) {
                const std::vector<std::string> done_tok = first_tokens(tok, tiled_context.rows());
                b.operand("finished-output", "o", finished_output, done_tok, out_dims,
                          MatrixKind::Context)
                    .frame = frame;
                b.operand("finished-sum", "ℓ", finished_sum, done_tok, {"ℓ"}, MatrixKind::Scores)
                    .frame = frame;
                derive(b.add("tiled-context", "z", tiled_context, done_tok, out_dims,
                             MatrixKind::Context),
                       Derivation::TileNormalize, "finished-output", "finished-sum")
                    .frame = frame;
                b.fact("max_abs_diff", static_cast<double>(max_abs_diff), frame);
            }
            b.fact("tiles_done", static_cast<double>(tiles_done), frame);
            b.step().frame_labels.push_back(qt_labels[static_cast<std::size_t>(r)] + " × " +
                                            kt_labels[static_cast<std::size_t>(c)]);
            ++frame;
        }
    }
    b.step().frame_count = frame;
    add_tile_totals(b, bq, bk, n_qt * n_kt, tiles_done, num_skipped);
    return b.take();
}

namespace {

struct HeadProjections {
    Matrix queries, keys, values;
    Eigen::Index kv_head = 0;
};

// Query head h's queries and the keys and values of the K/V head it reads (batch item 0), or
// nullopt when the run kept no projections or their widths do not split into its heads.
std::optional<HeadProjections> head_projections(const RunResult& run, Eigen::Index h) {
    const ModuleOutput& out = run.output;
    if (out.heads.empty() || out.queries.empty() || out.keys.empty() || out.values.empty())
        return std::nullopt;
    const Eigen::Index heads = static_cast<Eigen::Index>(out.heads[0].size());
    const Eigen::Index kv_heads = run.config.num_kv_heads > 0 ? run.config.num_kv_heads : heads;
    if (heads < 1 || heads % kv_heads != 0) return std::nullopt;
    const Matrix& q = out.queries[0];
    const Matrix& k = out.keys[0];
    const Matrix& v = out.values[0];
    if (q.cols() % heads != 0 || k.cols() % kv_heads != 0 || v.cols() % kv_heads != 0)
        return std::nullopt;
    const Eigen::Index hd = q.cols() / heads;
    if (k.cols() / kv_heads != hd) return std::nullopt;
    const Eigen::Index vd = v.cols() / kv_heads;
    HeadProjections p;
    p.kv_head = kv_head_of(h, heads, kv_heads);
    p.queries = q.middleCols(h * hd, hd);
    p.keys = k.middleCols(p.kv_head * hd, hd);
    p.values = v.middleCols(p.kv_head * vd, vd);
    return p;
}

// Tiles the walk computes: all but those above the diagonal when causal (as tiles_step counts).
Eigen::Index computed_tiles(Eigen::Index t, Eigen::Index bq, Eigen::Index bk, bool causal) {
    Eigen::Index n = 0;
    for (Eigen::Index i0 = 0; i0 < t; i0 += bq)
        for (Eigen::Index j0 = 0; j0 < t; j0 += bk)
            if (!causal || j0 <= std::min(t, i0 + bq) - 1) ++n;
    return n;
}

}  // namespace

RunTiles run_tiles(const RunResult& run, const std::vector<std::string>& tokens, Eigen::Index head,
                   Eigen::Index query_tile, Eigen::Index key_tile, Eigen::Index max_tiles) {
    RunTiles tiles;
    if (run.output.heads.empty()) return tiles;
    tiles.num_heads = static_cast<Eigen::Index>(run.output.heads[0].size());
    tiles.num_tokens = static_cast<Eigen::Index>(tokens.size());
    tiles.head = std::clamp<Eigen::Index>(head, 0, std::max<Eigen::Index>(tiles.num_heads, 1) - 1);
    const Eigen::Index largest = std::max<Eigen::Index>(tiles.num_tokens, 1);
    tiles.query_tile = std::clamp<Eigen::Index>(query_tile, 1, largest);
    tiles.key_tile = std::clamp<Eigen::Index>(key_tile, 1, largest);
    const std::optional<HeadProjections> p = head_projections(run, tiles.head);
    if (!p) {
        tiles.status = RunTiles::Status::NotSplit;
        return tiles;
    }
    tiles.kv_head = p->kv_head;
    tiles.grouped = run.config.num_kv_heads > 0 && run.config.num_kv_heads < tiles.num_heads;
    const Eigen::Index t = p->queries.rows();
    if (p->keys.rows() != t) {
        tiles.status = RunTiles::Status::CrossAttention;
        return tiles;
    }
    tiles.causal = run.config.causal.value_or(module_info(*run.config.module).causal_by_default);
    tiles.tiles = computed_tiles(t, tiles.query_tile, tiles.key_tile, tiles.causal);
    if (tiles.tiles > max_tiles) {
        tiles.status = RunTiles::Status::TooManyTiles;
        return tiles;
    }
    try {
        StepBuilder b(tiles_step(p->queries, p->keys, p->values, tokens, tiles.causal,
                                 tiles.query_tile, tiles.key_tile, kFlashTilesStepNumber));
        b.arg("num_tokens", count(t));
        const StepMatrix* tiled = b.step().find("causal-context");
        const Matrix& context = run.output.heads[0][static_cast<std::size_t>(tiles.head)].context;
        tiles.max_abs_diff = tiled && tiled->values.rows() == context.rows() &&
                                     tiled->values.cols() == context.cols()
                                 ? (tiled->values - context).cwiseAbs().maxCoeff()
                                 : 0.0f;
        tiles.matches_run = tiles.max_abs_diff <= 1e-4f;
        tiles.step = b.take();
        tiles.status = RunTiles::Status::Tiled;
    } catch (const AttentionError& e) {
        tiles.status = RunTiles::Status::Refused;
        tiles.error = e.what();
    }
    return tiles;
}

}  // namespace attn
