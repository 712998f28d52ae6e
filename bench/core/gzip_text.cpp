// gzip-compressed results, through zlib.
#include "bench/core/gzip_text.hpp"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstddef>

#include "base/errors.hpp"

namespace hetprobe {

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

namespace {

struct Inflater {
  z_stream z{};
  Inflater() {
    // 16 + MAX_WBITS: a gzip header and trailer around the deflate data.
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw Error(ErrorKind::io, "zlib: cannot start a gzip reader");
  }
  ~Inflater() { inflateEnd(&z); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
};

}  // namespace

std::string gunzip(std::string_view bytes, const std::filesystem::path& where, std::size_t max_bytes) {
  Inflater in;
  std::string out;
  char buf[1 << 16];
  std::size_t fed = 0;  // bytes handed to zlib so far (avail_in is 32-bit)
  auto feed = [&] {
    const std::size_t n = std::min<std::size_t>(bytes.size() - fed, UINT_MAX);
    in.z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + fed));
    in.z.avail_in = static_cast<uInt>(n);
    fed += n;
  };
  feed();
  for (;;) {
    if (in.z.avail_in == 0 && fed < bytes.size()) feed();
    in.z.next_out = reinterpret_cast<Bytef*>(buf);
    in.z.avail_out = sizeof buf;
    const int rc = inflate(&in.z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - in.z.avail_out);
    if (out.size() > max_bytes)
      throw usage_error(where.string() + ": decompressed, its text passes " + std::to_string(max_bytes >> 20) +
                        " MiB, the most a results file may hold: refused (split the run into several files)");
    const bool input_left = in.z.avail_in > 0 || fed < bytes.size();
    if (rc == Z_STREAM_END) {
      if (!input_left) return out;
      inflateReset(&in.z);  // the next member
    } else if (rc == Z_BUF_ERROR && !input_left) {
      return out;  // cut short: the text so far
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      throw usage_error(where.string() + ": not a valid gzip file (" + (in.z.msg ? in.z.msg : "zlib error") +
                        "): results files are JSON Lines, plain or gzip-compressed");
    }
  }
}

}  // namespace hetprobe
