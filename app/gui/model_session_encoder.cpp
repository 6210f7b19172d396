// ModelSession's encoder parts: the text and its pair through the tokenizer's template, tokens the
// user masks, and the padded batch of the two sentences checked in the background.
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <exception>

#include "app/gui/model_session.h"
#include "app/gui/when_done.h"

bool ModelSession::encoder() const {
    return source_ == Source::Model && model_.weights &&
           attn::is_encoder(model_.weights->spec.family);
}

bool ModelSession::hasPairTemplate() const {
    return encoder() && model_.tokenizer && model_.tokenizer->hasPairTemplate();
}

void ModelSession::setPair(const QString& pair) {
    if (pair == pair_) return;
    pair_ = pair;
    masked_.clear();
    if (encoder()) retokenize();
}

bool ModelSession::toggleMask(int index) {
    if (!encoder() || !model_.tokenizer->maskId()) return false;
    const auto at = std::find(masked_.begin(), masked_.end(), index);
    if (at != masked_.end()) {
        masked_.erase(at);
    } else {
        if (index < 0 || index >= static_cast<int>(view_.ids.size()) ||
            view_.special[static_cast<std::size_t>(index)])
            return false;
        masked_.push_back(index);
    }
    retokenize();
    return true;
}

void ModelSession::tokenize(View& view) const {
    const attn::Tokenizer& tokenizer = *model_.tokenizer;
    if (!encoder()) {
        view.ids = tokenizer.encode(text_);
    } else {
        const bool paired = hasPairTemplate() && !pair_.trimmed().isEmpty();
        attn::TokenizedInput input = paired ? tokenizer.encodeInput(text_, QStringView(pair_))
                                            : tokenizer.encodeInput(text_);
        view.ids = std::move(input.ids);
        view.typeIds = std::move(input.typeIds);
        view.segments = std::move(input.segments);
        if (view.segments.size() != view.ids.size()) view.segments.assign(view.ids.size(), 0);
        for (int id : view.ids) {
            view.special.push_back(tokenizer.isSpecial(id));
            view.unmaskedTokens << tokenizer.displayToken(id);
        }
        // The tokens the user clicked read as the mask token; the text stays as typed.
        const std::optional<int> mask = tokenizer.maskId();
        for (int position : masked_)
            if (mask && position < static_cast<int>(view.ids.size()))
                view.ids[static_cast<std::size_t>(position)] = *mask;
    }
    for (int id : view.ids) view.tokens << tokenizer.displayToken(id);
}

void ModelSession::runPaddingCheck() {
    const std::uint64_t run = ++paddingRun_;
    padding_.reset();
    paddingProblem_.clear();
    if (!encoder()) return;
    if (!hasPairTemplate() || pair_.trimmed().isEmpty()) {
        paddingProblem_ = tr("Type a Sentence B: the two sentences then run as one padded batch.");
        emit paddingChanged();
        return;
    }
    const std::optional<int> pad = model_.tokenizer->padId();
    if (!pad) {
        paddingProblem_ = tr("This tokenizer has no padding token, so there is no padded batch.");
        emit paddingChanged();
        return;
    }
    // Each sentence as its own sequence, as a framework batches two texts.
    const attn::TokenizedInput a = model_.tokenizer->encodeInput(text_);
    const attn::TokenizedInput b = model_.tokenizer->encodeInput(pair_);
    const std::shared_ptr<const attn::TransformerWeights> weights = model_.weights;
    const int padId = *pad;
    struct Outcome {
        std::shared_ptr<attn::PaddingCheck> check;
        QString error;
    };
    const bool wasBusy = busy();
    ++pendingRuns_;
    auto task = QtConcurrent::run([weights, a, b, padId] {
        Outcome out;
        try {
            out.check = std::make_shared<attn::PaddingCheck>(
                attn::padding_check(*weights, {a.ids, b.ids}, {a.typeIds, b.typeIds}, padId));
        } catch (const std::exception& e) {
            out.error = QString::fromUtf8(e.what());
        }
        return out;
    });
    emitBusy(wasBusy);
    whenDone(this, std::move(task), [this, run](const Outcome& out) {
        const bool before = busy();
        pendingRuns_ = std::max(0, pendingRuns_ - 1);
        if (run == paddingRun_) {
            padding_ = out.check;
            paddingProblem_ = out.error;
            emit paddingChanged();
        }
        emitBusy(before);
    });
}
