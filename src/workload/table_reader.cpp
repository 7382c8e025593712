#define CSV_IO_NO_THREAD
#pragma GCC diagnostic ignored "-Wstringop-truncation"  // in libfccp
#include "workload/table_reader.h"

#include <libfccp/csv.h>

#include <fstream>

#include "core/error.h"
#include "workload/parse_util.h"

namespace rm {

TableReader::TableReader(const std::string& path, char sep, const std::string* text) : path_(path), sep_(sep) {
  try {
    if (text) {
      reader_ = std::make_unique<io::LineReader>(path, text->data(), text->data() + text->size());
    } else {
      std::ifstream probe(path);
      if (!probe) throw InputError(path, 0, "", "cannot open file");
      reader_ = std::make_unique<io::LineReader>(path);
    }
  } catch (const io::error::base& e) {
    throw InputError(path, 0, "", e.what());
  }
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
    std::string s(l);
    if (trim(s).empty() || trim(s)[0] == '#') continue;
    fields = split_csv(s, sep_, path_, line_);
    for (auto& f : fields) f = trim(f);
    return true;
  }
}

std::optional<std::string> TableReader::first_line(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string s;
  while (std::getline(in, s))
    if (!trim(s).empty() && trim(s)[0] != '#') return s;
  return std::string();
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

std::string TableReader::require(const std::vector<std::string>& row, const std::string& name) const {
  auto c = column(name);
  if (!c) throw InputError(path_, line_, name, "column missing from the header");
  if (*c >= row.size())
    throw InputError(path_, line_, name,
                     "row has " + std::to_string(row.size()) + " fields, header has " + std::to_string(header_.size()));
  return row[*c];
}

}  // namespace rm
