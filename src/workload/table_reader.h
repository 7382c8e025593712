// Line-by-line delimited-text reading (fast-cpp-csv-parser's LineReader underneath), with a header
// map, so every reader can report file:line:field.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace io {
class LineReader;
}

namespace rm {

class TableReader {
 public:
  // Reads from `text` (the whole file); `path` names it in errors.
  TableReader(const std::string& path, char sep, const std::string* text);
  // The whole of a trace file, checked: an error naming the file if it is missing, a folder or unreadable,
  // and naming the line and column of a NUL byte; a leading UTF-8 byte-order mark is dropped.
  static std::string load(const std::string& path);
  // The first data line of `text` (for format detection); "" if none.
  static std::string first_line_of(const std::string& text);
  ~TableReader();
  // Reads the next non-empty, non-comment ('#') line; false at end of file.
  bool next(std::vector<std::string>& fields);
  long line() const { return line_; }
  // How many lines the text has (an upper bound of its rows).
  std::size_t line_count() const { return line_count_; }
  const std::string& file() const { return path_; }

  // Header handling: remembers column names from a header row.
  void set_header(const std::vector<std::string>& names);
  std::optional<std::size_t> column(const std::string& name) const;
  // The named field of `row`, or "" when the column is absent or the row short.
  std::string get(const std::vector<std::string>& row, const std::string& name) const;
  std::string require(const std::vector<std::string>& row, const std::string& name) const;
  // A data row must have exactly the header's number of fields (an error naming the line otherwise).
  void check_width(const std::vector<std::string>& row) const;
  // A headerless format: exactly these fields; the error names the first missing one (or the first extra).
  void check_fields(const std::vector<std::string>& row, const std::vector<std::string>& names,
                    const std::string& separator) const;

 private:
  std::string path_;
  char sep_;
  std::unique_ptr<io::LineReader> reader_;
  long line_ = 0;
  std::size_t line_count_ = 0;
  std::map<std::string, std::size_t> header_;
};

}  // namespace rm
