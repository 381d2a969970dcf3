// Fuzz target: the command line's option handling, run in this process (wagener::cli::run) on small
// fixture files in a private temporary folder. The fuzz data is the argument list (after `wagener
// hull` or `wagener render`), one argument per line. Every run must
//  * exit 0, 1 or 2;
//  * leave no file the arguments did not name (no temporary file of an atomic write);
//  * leave the output file (`hull -o FILE`), when it exists, complete: exactly the serial
//    reference's hull of the input in the requested output format; and write it when exit is 0.
// Arguments are kept inside the folder: one holding '/', equal to ".." or an option ending in ".." is
// dropped, as are the other subcommands' names and numbers over 4 digits (a 20000-pixel raster is
// slow, not wrong).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "cpu/monotone_chain.hpp"
#include "fuzz_common.hpp"
#include "wagener/error.hpp"
#include "wagener/output.hpp"

namespace {

using wagener::fuzz::require;

// A square with its corners, a point on an edge, a duplicate corner and inner points: its hull is
// the four corners, its upper hull (0,0) (0,4) (4,4) (4,0) clockwise over the top.
const double kPoints[][2] = {{1, 1}, {0, 0}, {4, 0}, {2, 0}, {4, 4}, {2, 3}, {0, 4}, {4, 4}, {3, 1}};

std::string binary_fixture(bool wide) {
  std::string bytes;
  for (const auto& p : kPoints) {
    for (const double v : p) {
      if (wide) {
        bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
      } else {
        const auto f = static_cast<float>(v);
        bytes.append(reinterpret_cast<const char*>(&f), sizeof f);
      }
    }
  }
  return bytes;
}

std::vector<std::pair<std::string, std::string>> fixtures() {
  std::ostringstream seed, csv, lines;
  seed << std::size(kPoints) << '\n';
  csv << "x,y\n";
  for (const auto& p : kPoints) {
    seed << p[0] << ' ' << p[1] << '\n';
    csv << p[0] << ',' << p[1] << '\n';
    lines << p[0] << ' ' << p[1] << '\n';
  }
  std::string sorted_lines;
  std::vector<std::pair<double, double>> sorted;
  for (const auto& p : kPoints) sorted.emplace_back(p[0], p[1]);
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [x, y] : sorted) sorted_lines += std::to_string(x) + " " + std::to_string(y) + "\n";
  return {{"in.txt", seed.str()},
          {"in.csv", csv.str()},
          {"in", lines.str()},
          {"sorted.txt", sorted_lines},
          {"in.f32", binary_fixture(false)},
          {"in.f64", binary_fixture(true)},
          {"bad.txt", "0 0\n1 nan\n2 2\n"},
          {"empty.txt", ""}};
}

void write_fixtures() {
  for (const auto& [name, bytes] : fixtures()) {
    std::ofstream out(name, std::ios::binary | std::ios::trunc);
    out << bytes;
    require(out.good(), "cannot write the fixture " + name);
  }
}

std::set<std::string> folder_entries() {
  std::set<std::string> names;
  DIR* dir = ::opendir(".");
  require(dir != nullptr, "cannot list the fuzz folder");
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.insert(name);
  }
  ::closedir(dir);
  return names;
}

/// Empties the folder of everything a previous run wrote and restores the fixtures (a run may have
/// written its output onto one).
void reset_folder() {
  std::set<std::string> keep;
  for (const auto& [name, bytes] : fixtures()) keep.insert(name);
  for (const auto& name : folder_entries())
    if (!keep.contains(name) && ::unlink(name.c_str()) != 0) ::rmdir(name.c_str());
  write_fixtures();
}

/// The bytes of the regular file at path; nullopt where there is none (a folder is no output file).
std::optional<std::string> file_bytes(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// The bytes `wagener hull` must write for cmd, from the serial reference; nullopt when the input is
/// refused (the run must then fail).
template <class T>
std::optional<std::string> expected_output(const wagener::cli::HullCommand& cmd) {
  try {
    const auto output = wagener::cli::output_options(cmd);
    auto read = wagener::cli::read_options(cmd);
    read.check_values = true;
    const auto set = wagener::read_points<T>(cmd.input, read);
    const std::span<const wagener::Point2<T>> points = set.points();
    std::vector<wagener::Point2<T>> sorted(points.begin(), points.end());
    std::sort(sorted.begin(), sorted.end(), wagener::lex_less<T>);
    const auto hull =
        cmd.upper ? wagener::cpu::upper_chain<T>(sorted) : wagener::cpu::convex_hull_serial<T>(points);
    if (cmd.indices) return wagener::format_indices(wagener::vertex_indices<T>(points, hull), output);
    return wagener::format_hull<T>(hull, output);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// What the hull subcommand's own parser makes of the arguments; nullopt when it refuses them or
/// they ask for help.
std::optional<wagener::cli::HullCommand> parse_hull(const std::vector<std::string>& args) {
  CLI::App app;
  wagener::cli::HullCommand cmd;
  auto* hull = app.add_subcommand("hull");
  wagener::cli::add_hull_options(*hull, cmd);
  std::vector<std::string> reversed{args.rbegin(), args.rend()};
  reversed.push_back("hull");
  try {
    app.parse(reversed);
  } catch (const CLI::Error&) {
    return std::nullopt;
  }
  return cmd;
}

bool kept(const std::string& arg) {
  if (arg.find('/') != std::string::npos || arg == ".." || arg == "demo" || arg == "generate") return false;
  // An option's value written into it ("-o..", "--output=..") can name the parent folder too.
  if (arg.starts_with('-') && arg.ends_with("..")) return false;
  std::size_t digits = 0;
  for (const char c : arg) digits = std::isdigit(static_cast<unsigned char>(c)) ? digits + 1 : 0;
  return digits <= 4 && arg.size() <= 40;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char folder[] = "/tmp/wagener-fuzz-cli.XXXXXX";
  require(::mkdtemp(folder) != nullptr, "cannot make a temporary folder");
  require(::chdir(folder) == 0, "cannot enter the temporary folder");
  // Standard input is empty (an argument list without FILE reads it); the hull is written nowhere.
  require(std::freopen("/dev/null", "r", stdin) != nullptr, "cannot reopen standard input");
  require(std::freopen("/dev/null", "w", stdout) != nullptr, "cannot reopen standard output");
  write_fixtures();
  std::atexit([] {
    reset_folder();
    for (const auto& [name, bytes] : fixtures()) ::unlink(name.c_str());
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd) != nullptr && ::chdir("/") == 0) ::rmdir(cwd);
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  if (size == 0 || size > 400) return 0;
  const bool render = (bytes[0] & 1) != 0;
  std::vector<std::string> args;
  std::string current;
  for (std::size_t i = 1; i <= size; ++i) {
    if (i == size || bytes[i] == '\n' || bytes[i] == '\0') {
      if (kept(current)) args.push_back(current);
      current.clear();
      if (args.size() == 16) break;
    } else {
      current += static_cast<char>(bytes[i]);
    }
  }
  reset_folder();
  const auto before = folder_entries();

  std::optional<wagener::cli::HullCommand> cmd;
  std::optional<std::string> expected;
  if (!render && (cmd = parse_hull(args))) {
    expected =
        wagener::cli::with_precision(cmd->precision, [&]<class T>(T) { return expected_output<T>(*cmd); });
  }

  std::vector<std::string> argv_strings{"wagener", render ? "render" : "hull"};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  const int code = wagener::cli::run(static_cast<int>(argv_strings.size()), argv.data());
  require(code == 0 || code == 1 || code == 2, "exit code " + std::to_string(code));

  std::string all_args;
  for (const auto& a : args) all_args += a + '\n';
  for (const auto& name : folder_entries())
    require(before.contains(name) || all_args.find(name) != std::string::npos,
            "a file no argument named was left behind: " + name);

  if (!cmd || cmd->output == "-") return 0;
  // Another file of the same run (--svg, --ps, --trace) written to the same path replaces the hull.
  const auto& out = cmd->output;
  if (out == cmd->svg || out == cmd->ps || out == cmd->trace || out == "." || out.empty()) return 0;
  const auto written = file_bytes(out);
  const bool fixture = before.contains(out);
  if (code == 0) require(written.has_value(), "exit 0 without writing " + out);
  if (code == 0) require(expected.has_value(), "exit 0 on input the reference refuses");
  if (written && (!fixture || code == 0) && expected)
    require(*written == *expected, "the output file " + out + " is not the complete hull");
  if (written && !fixture && !expected) wagener::fuzz::fail("an output file after refused input: " + out);
  return 0;
}
