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
  // Opens `path`; throws InputError naming the file if it cannot. `text` non-null reads from memory.
  TableReader(const std::string& path, char sep, const std::string* text = nullptr);
  ~TableReader();
  // Reads the next non-empty, non-comment ('#') line; false at end of file.
  bool next(std::vector<std::string>& fields);
  long line() const { return line_; }
  const std::string& file() const { return path_; }
  // Peek at the first data line without consuming it (for format detection).
  static std::optional<std::string> first_line(const std::string& path);

  // Header handling: remembers column names from a header row.
  void set_header(const std::vector<std::string>& names);
  std::optional<std::size_t> column(const std::string& name) const;
  // The named field of `row`, or "" when the column is absent or the row short.
  std::string get(const std::vector<std::string>& row, const std::string& name) const;
  std::string require(const std::vector<std::string>& row, const std::string& name) const;

 private:
  std::string path_;
  char sep_;
  std::unique_ptr<io::LineReader> reader_;
  long line_ = 0;
  std::map<std::string, std::size_t> header_;
};

}  // namespace rm
