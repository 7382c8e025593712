// "Did you mean ...?" for mistyped names (flags, subcommands, policies, plugins).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace rm {

// Edit distance: insertions, deletions, substitutions and swaps of neighbouring characters.
std::size_t edit_distance(const std::string& a, const std::string& b);
// The candidate closest to `word` by edit distance when it is close enough to be a typo (at most 2 edits, or a
// third of the word's length), else "".
std::string nearest_name(const std::string& word, const std::vector<std::string>& candidates);
// A name as lookups compare it: lower case, without '-', '_' and spaces (models, GPU types).
std::string normalise_name(const std::string& name);
// " (did you mean 'x'?)" or "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace rm
