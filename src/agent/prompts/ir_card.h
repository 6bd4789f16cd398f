// The reference card of the .ekb language that a model is given (prompts/ir_card.md): made from
// docs/ir.md, the one description of the language, so that what a model reads and what the docs
// (whose examples the tests check) say cannot drift apart. A test regenerates the card and compares
// it with the committed file; `ekb prompt --card` prints it.
#pragma once
#include <string>

namespace ekb::agent {

// The card from the text of docs/ir.md: everything but the parts between `<!-- card: off -->` and
// `<!-- card: on -->` lines, the `ekb-error` examples (a model needs what is right, not what is
// rejected), and the markers themselves; runs of empty lines become one. Starts with a line saying
// where it comes from.
std::string ir_card_from_docs(const std::string& docs_text);

}  // namespace ekb::agent
