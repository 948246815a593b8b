// The parts of Go's fmt and strings packages that ported code needs to produce the same text.
//
// The controller fills its Flux script templates with fmt.Sprintf and string arguments, so a
// template is a Go format string. We reproduce Sprintf's output for %s and %v (the argument),
// %x and %X (its bytes in hex), %T ("string"), %% and Go's error markers: %!c(string=...) for a
// verb strings do not take, %!c(MISSING), %!(EXTRA string=...) and %!(NOVERB). Flags, width,
// precision, argument indexes, %q and %w are not implemented: they raise an Error instead of output
// that could differ from the controller's.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace trainer {

// `source` names the format in error messages (e.g. the template file).
std::string GoSprintf(std::string_view format, std::span<const std::string> args, std::string_view source);

// strings.TrimSpace: `text` without leading and trailing Unicode white space.
std::string_view GoTrimSpace(std::string_view text);

}  // namespace trainer
