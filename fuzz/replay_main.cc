// A main for the fuzz targets when they are not built with libFuzzer (TONY_FUZZ off, e.g. g++):
// runs LLVMFuzzerTestOneInput once on every file under the directories (or files) given, so the
// seed corpus and the regression inputs are a unit test. A first argument that does not exist
// is an error (the corpus must be there); later ones may be missing (no regressions yet).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::vector<std::filesystem::path> InputsUnder(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> out;
  if (std::filesystem::is_regular_file(root)) return {root};
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR [MORE_DIRS_OR_FILES...]\n", argv[0]);
    return 2;
  }
  size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    std::filesystem::path root = argv[i];
    std::error_code ec;
    if (!std::filesystem::exists(root, ec)) {
      if (i == 1) {
        std::fprintf(stderr, "%s: no such corpus %s\n", argv[0], argv[i]);
        return 2;
      }
      continue;
    }
    for (const auto& path : InputsUnder(root)) {
      std::ifstream in(path, std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (!in.good() && !in.eof()) {
        std::fprintf(stderr, "%s: cannot read %s\n", argv[0], path.c_str());
        return 2;
      }
      std::fprintf(stderr, "replaying %s (%zu bytes)\n", path.c_str(), bytes.size());
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
  }
  if (replayed == 0) {
    std::fprintf(stderr, "%s: no inputs under %s\n", argv[0], argv[1]);
    return 1;
  }
  std::fprintf(stderr, "%s: %zu inputs replayed\n", argv[0], replayed);
  return 0;
}
