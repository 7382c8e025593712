#define CSV_IO_NO_THREAD
#pragma GCC diagnostic ignored "-Wstringop-truncation"  // in libfccp
#include "workload/table_reader.h"

#include <string_view>

#include <libfccp/csv.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/error.h"
#include "workload/parse_util.h"

namespace rm {

TableReader::TableReader(const std::string& path, char sep, const std::string* text)
    : path_(path), sep_(sep), line_count_(static_cast<std::size_t>(std::count(text->begin(), text->end(), '\n')) + 1) {
  try {
    reader_ = std::make_unique<io::LineReader>(path, text->data(), text->data() + text->size());
  } catch (const io::error::base& e) {
    throw InputError(path, 0, "", e.what());
  }
}

std::string TableReader::load(const std::string& path) {
  std::string text = read_input_file(path, kMaxTraceBytes, "trace");
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // UTF-8 byte-order mark
  const auto nul = text.find('\0');
  if (nul != std::string::npos) {
    const long line = 1 + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<long>(nul), '\n'));
    const auto bol = text.rfind('\n', nul);
    const auto col = nul - (bol == std::string::npos ? 0 : bol + 1) + 1;
    throw InputError(path, line, "", "NUL byte at column " + std::to_string(col) + " (a binary or corrupt file?)");
  }
  return text;
}

std::string TableReader::first_line_of(const std::string& text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto end = std::min(text.find('\n', pos), text.size());
    std::string s = trim(text.substr(pos, end - pos));
    pos = end + 1;
    if (!s.empty() && s[0] != '#') return s;
  }
  return "";
}

TableReader::~TableReader() = default;

bool TableReader::next(std::vector<std::string>& fields) {
  for (;;) {
    char* l = nullptr;
    try {
      l = reader_->next_line();
    } catch (const io::error::base& e) {
      throw InputError(path_, line_ + 1, "", e.what());
    }
    if (!l) return false;
    line_ = reader_->get_file_line();
    const std::string_view v(l);
    // (Loops by hand: string_view's find_first_of calls memchr on the set for every character of the line.)
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    std::size_t first = 0;
    while (first < v.size() && blank(v[first])) ++first;
    if (first == v.size() || v[first] == '#') continue;
    if (std::any_of(v.begin(), v.end(), [](char c) { return c == '"' || c == '\r'; })) {  // the full CSV rules
      fields = split_csv(std::string(v), sep_, path_, line_);
      for (auto& f : fields) f = trim(f);
      return true;
    }
    // The common line: fields between separators, trimmed, into the strings `fields` already holds.
    std::size_t n = 0, start = 0;
    for (;;) {
      const auto end = v.find(sep_, start);
      std::string_view f = v.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
      while (!f.empty() && (f.front() == ' ' || f.front() == '\t')) f.remove_prefix(1);
      while (!f.empty() && (f.back() == ' ' || f.back() == '\t')) f.remove_suffix(1);
      if (n < fields.size()) fields[n].assign(f);
      else fields.emplace_back(f);
      ++n;
      if (end == std::string_view::npos) break;
      start = end + 1;
    }
    fields.resize(n);
    return true;
  }
}

void TableReader::set_header(const std::vector<std::string>& names) {
  header_.clear();
  for (std::size_t i = 0; i < names.size(); ++i) header_[trim(names[i])] = i;
}

std::optional<std::size_t> TableReader::column(const std::string& name) const {
  auto it = header_.find(name);
  if (it == header_.end()) return std::nullopt;
  return it->second;
}

std::string TableReader::get(const std::vector<std::string>& row, const std::string& name) const {
  auto c = column(name);
  if (!c || *c >= row.size()) return "";
  return row[*c];
}

void TableReader::check_width(const std::vector<std::string>& row) const {
  if (row.size() != header_.size())
    throw InputError(path_, line_, "",
                     "row has " + std::to_string(row.size()) + " fields, the header has " + std::to_string(header_.size()));
}

void TableReader::check_fields(const std::vector<std::string>& row, const std::vector<std::string>& names,
                               const std::string& separator) const {
  if (row.size() == names.size()) return;
  std::string all;
  for (const auto& n : names) all += (all.empty() ? "" : ",") + n;
  const std::string field = row.size() < names.size() ? names[row.size()] : "field " + std::to_string(names.size() + 1);
  throw InputError(path_, line_, field,
                   (row.size() < names.size() ? "missing: " : "too many fields: ") + std::string("expected ") +
                       std::to_string(names.size()) + " " + separator + "-separated fields (" + all + "), got " +
                       std::to_string(row.size()));
}

std::string TableReader::require(const std::vector<std::string>& row, const std::string& name) const {
  auto c = column(name);
  if (!c) throw InputError(path_, line_, name, "column missing from the header");
  if (*c >= row.size())
    throw InputError(path_, line_, name,
                     "row has " + std::to_string(row.size()) + " fields, header has " + std::to_string(header_.size()));
  return row[*c];
}

}  // namespace rm
