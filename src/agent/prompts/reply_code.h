// The code in a model's reply: the fenced block in the language that was asked for. A reply with no
// fenced block is `no code`; one whose blocks are all in other languages is `wrong language` (a
// Python sketch when C was asked for). Both are the model's failures, told apart from code that
// does not compile.
#pragma once
#include <string>

#include "agent/prompts/task_prompt.h"

namespace ekb::agent {

enum class ReplyCodeStatus { ok, no_code, wrong_language };
const char* reply_code_status_name(ReplyCodeStatus s);  // "ok", "no code", "wrong language"

struct ReplyCode {
  ReplyCodeStatus status = ReplyCodeStatus::no_code;
  std::string code;     // the block's text (ok)
  std::string message;  // why not (no_code, wrong_language), for a person and for the model's next turn
};

// The last fenced block tagged with `lang`'s fence or one of its aliases (any case); else the last
// untagged block; a block left open by a truncated reply runs to the end of the reply.
ReplyCode extract_code(const std::string& reply, const CodeLanguage& lang);

}  // namespace ekb::agent
