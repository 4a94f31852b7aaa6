#include "tests/support/libpng_oracle.h"

#include <png.h>
#include <zlib.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "core/png/checksum.h"
#include "tools/libpng_write.h"

namespace hetcodec::test {
namespace {

struct Reader {
  const std::vector<std::uint8_t>* file;
  std::size_t at = 0;
};

void read_from_vector(png_structp png, png_bytep data, png_size_t n) {
  auto* r = static_cast<Reader*>(png_get_io_ptr(png));
  if (r->at + n > r->file->size()) png_error(png, "read past the end");
  std::memcpy(data, r->file->data() + r->at, n);
  r->at += n;
}

}  // namespace

std::vector<std::uint8_t> libpng_encode(const png::Raster& im, int strategy) {
  return tools::libpng_write(im.width, im.height, im.channels, im.bit_depth, im.samples.data(),
                             strategy);
}

std::vector<std::uint8_t> zlib_deflate(const std::vector<std::uint8_t>& input,
                                       const std::vector<std::size_t>& pieces, int window_bits,
                                       int strategy) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, window_bits, 8, strategy) != Z_OK)
    throw std::runtime_error("deflateInit2 failed");
  std::vector<std::uint8_t> out;
  std::uint8_t buf[4096];
  std::size_t at = 0;
  auto pump = [&](std::size_t n, int flush) {
    z.next_in = const_cast<Bytef*>(input.data() + at);
    z.avail_in = uInt(n);
    at += n;
    int ret;
    do {
      z.next_out = buf;
      z.avail_out = sizeof buf;
      ret = deflate(&z, flush);
      out.insert(out.end(), buf, buf + (sizeof buf - z.avail_out));
    } while (z.avail_in != 0 || (flush == Z_FINISH && ret != Z_STREAM_END) || z.avail_out == 0);
  };
  for (std::size_t p : pieces) pump(p, Z_NO_FLUSH);
  pump(0, Z_FINISH);
  deflateEnd(&z);
  return out;
}

std::vector<std::uint8_t> zlib_inflate(const std::vector<std::uint8_t>& stream) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) throw std::runtime_error("inflateInit failed");
  std::vector<std::uint8_t> out;
  std::uint8_t buf[16384];
  z.next_in = const_cast<Bytef*>(stream.data());
  z.avail_in = uInt(stream.size());
  int ret;
  do {
    z.next_out = buf;
    z.avail_out = sizeof buf;
    ret = inflate(&z, Z_NO_FLUSH);
    if (ret != Z_OK && ret != Z_STREAM_END) {
      inflateEnd(&z);
      throw std::runtime_error("inflate: " + std::string(z.msg ? z.msg : "error"));
    }
    out.insert(out.end(), buf, buf + (sizeof buf - z.avail_out));
  } while (ret != Z_STREAM_END);
  inflateEnd(&z);
  return out;
}

std::vector<std::uint8_t> libpng_write_any(int width, int height, int color_type, int bit_depth,
                                           bool interlace, const std::vector<std::uint8_t>& rows,
                                           const std::vector<std::uint8_t>& palette,
                                           const std::vector<std::uint8_t>& trns, int strategy) {
  std::vector<std::uint8_t> out;
  std::string message;
  png_structp png = png_create_write_struct(
      PNG_LIBPNG_VER_STRING, &message,
      [](png_structp p, png_const_charp m) {
        *static_cast<std::string*>(png_get_error_ptr(p)) = m;
        png_longjmp(p, 1);
      },
      [](png_structp, png_const_charp) {});
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw std::runtime_error("libpng failed to write: " + message);
  }
  png_set_write_fn(
      png, &out,
      [](png_structp p, png_bytep d, png_size_t n) {
        auto* v = static_cast<std::vector<std::uint8_t>*>(png_get_io_ptr(p));
        v->insert(v->end(), d, d + n);
      },
      nullptr);
  png_set_check_for_invalid_index(png, 0);  // palette indices past the palette are written
  png_set_IHDR(png, info, png_uint_32(width), png_uint_32(height), bit_depth, color_type,
               interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  std::vector<png_color> pal;
  for (std::size_t i = 0; i + 2 < palette.size(); i += 3)
    pal.push_back({palette[i], palette[i + 1], palette[i + 2]});
  if (!pal.empty()) png_set_PLTE(png, info, pal.data(), int(pal.size()));
  if (!trns.empty()) {
    if (color_type == PNG_COLOR_TYPE_PALETTE) {
      png_set_tRNS(png, info, trns.data(), int(trns.size()), nullptr);
    } else {
      png_color_16 key{};
      auto be = [&](std::size_t i) { return png_uint_16(trns[i] << 8 | trns[i + 1]); };
      key.gray = be(0);
      if (trns.size() >= 6) key.red = be(0), key.green = be(2), key.blue = be(4);
      png_set_tRNS(png, info, nullptr, 0, &key);
    }
  }
  if (strategy >= 0) png_set_compression_strategy(png, strategy);
  png_write_info(png, info);
  const std::size_t rb = png_get_rowbytes(png, info);
  std::vector<png_bytep> ptrs;
  for (int y = 0; y < height; ++y)
    ptrs.push_back(const_cast<png_bytep>(rows.data() + std::size_t(y) * rb));
  png_write_image(png, ptrs.data());
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return out;
}

std::vector<std::uint8_t> libpng_write_layout(const png::Raster& im, int strategy) {
  return libpng_write_any(im.width, im.height, im.color_type(), im.bit_depth, false, im.samples,
                          im.plte, im.trns, strategy);
}

namespace {

// libpng's samples of a file, with png_set_expand() and interlace handling or as stored; a CRC
// error is fatal in every chunk.
png::Raster read_with_libpng(const std::vector<std::uint8_t>& file, bool expand) {
  png::Raster im;
  png_structp png = png_create_read_struct(
      PNG_LIBPNG_VER_STRING, nullptr, [](png_structp p, png_const_charp) { png_longjmp(p, 1); },
      [](png_structp, png_const_charp) {});
  png_infop info = png_create_info_struct(png);
  std::vector<png_bytep> rows;
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw std::runtime_error("libpng refused the file");
  }
  Reader r{&file};
  png_set_read_fn(png, &r, read_from_vector);
  png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
  png_read_info(png, info);
  if (expand) {
    png_set_expand(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
  }
  im.width = int(png_get_image_width(png, info));
  im.height = int(png_get_image_height(png, info));
  im.bit_depth = png_get_bit_depth(png, info);
  im.channels = png_get_channels(png, info);
  if (!expand) {
    im.indexed = png_get_color_type(png, info) == PNG_COLOR_TYPE_PALETTE;
    png_colorp pal = nullptr;
    int entries = 0;
    if (im.indexed && png_get_PLTE(png, info, &pal, &entries))
      for (int i = 0; i < entries; ++i)
        im.plte.insert(im.plte.end(), {pal[i].red, pal[i].green, pal[i].blue});
    png_bytep alphas = nullptr;
    int n_trans = 0;
    png_color_16p key = nullptr;
    if (png_get_tRNS(png, info, &alphas, &n_trans, &key)) {
      auto be = [&](png_uint_16 v) {
        im.trns.push_back(std::uint8_t(v >> 8));
        im.trns.push_back(std::uint8_t(v));
      };
      if (im.indexed)
        im.trns.assign(alphas, alphas + n_trans);
      else if (im.channels == 1)
        be(key->gray);
      else
        be(key->red), be(key->green), be(key->blue);
    }
  }
  im.samples.resize(im.row_bytes() * std::size_t(im.height));
  for (int y = 0; y < im.height; ++y)
    rows.push_back(im.samples.data() + std::size_t(y) * im.row_bytes());
  png_read_image(png, rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return im;
}

}  // namespace

png::Raster libpng_decode(const std::vector<std::uint8_t>& file) {
  return read_with_libpng(file, false);
}

png::Raster libpng_decode_expanded(const std::vector<std::uint8_t>& file) {
  return read_with_libpng(file, true);
}

std::vector<std::uint8_t> idot_file(const png::Raster& im,
                                    const std::vector<std::uint8_t>& filtered,
                                    const std::vector<std::uint32_t>& first_rows, bool flush) {
  const std::size_t rb = im.row_bytes() + 1, n = first_rows.size();
  z_stream z{};
  if (deflateInit(&z, 6) != Z_OK) throw std::runtime_error("deflateInit failed");
  std::vector<std::uint8_t> stream;
  std::vector<std::size_t> starts;  // of each segment's part in `stream`
  std::uint8_t buf[4096];
  for (std::size_t k = 0; k < n; ++k) {
    starts.push_back(k == 0 ? 0 : stream.size());
    const std::size_t r1 = k + 1 < n ? first_rows[k + 1] : std::size_t(im.height);
    z.next_in = const_cast<Bytef*>(filtered.data() + first_rows[k] * rb);
    z.avail_in = uInt((r1 - first_rows[k]) * rb);
    const int mode = k + 1 == n ? Z_FINISH : flush ? Z_FULL_FLUSH : Z_NO_FLUSH;
    int ret;
    do {
      z.next_out = buf;
      z.avail_out = sizeof buf;
      ret = deflate(&z, mode);
      stream.insert(stream.end(), buf, buf + (sizeof buf - z.avail_out));
    } while (z.avail_in != 0 || z.avail_out == 0 || (mode == Z_FINISH && ret != Z_STREAM_END));
  }
  deflateEnd(&z);
  std::vector<std::uint8_t> f = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  auto put32 = [](std::vector<std::uint8_t>& v, std::uint32_t x) {
    for (int s = 24; s >= 0; s -= 8) v.push_back(std::uint8_t(x >> s));
  };
  auto chunk = [&](const char* type, const std::vector<std::uint8_t>& data) {
    put32(f, std::uint32_t(data.size()));
    const std::size_t at = f.size();
    f.insert(f.end(), type, type + 4);
    f.insert(f.end(), data.begin(), data.end());
    put32(f, png::crc32(0, f.data() + at, data.size() + 4));
  };
  std::vector<std::uint8_t> ihdr;
  put32(ihdr, std::uint32_t(im.width));
  put32(ihdr, std::uint32_t(im.height));
  const std::uint8_t types[] = {0, 0, 4, 2, 6};
  ihdr.insert(ihdr.end(), {std::uint8_t(im.bit_depth), types[im.channels], 0, 0, 0});
  chunk("IHDR", ihdr);
  std::vector<std::uint8_t> idot;
  put32(idot, std::uint32_t(n));
  std::size_t at = 12 + 4 + 12 * n;  // from the iDOT chunk's start to the first IDAT's
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t r1 = k + 1 < n ? first_rows[k + 1] : std::size_t(im.height);
    put32(idot, first_rows[k]);
    put32(idot, std::uint32_t(r1 - first_rows[k]));
    put32(idot, std::uint32_t(at));
    at += 12 + (k + 1 < n ? starts[k + 1] : stream.size()) - starts[k];
  }
  chunk("iDOT", idot);
  for (std::size_t k = 0; k < n; ++k)
    chunk("IDAT", std::vector<std::uint8_t>(
                      stream.begin() + std::ptrdiff_t(starts[k]),
                      stream.begin() + std::ptrdiff_t(k + 1 < n ? starts[k + 1] : stream.size())));
  chunk("IEND", {});
  return f;
}

}  // namespace hetcodec::test
