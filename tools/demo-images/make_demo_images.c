/* Makes the demo's images (README.md here) from photos in Debian's python3-skimage:
 *   cc -O2 make_demo_images.c -ljpeg -lpng -lm -o make_demo_images
 *   ./make_demo_images /usr/lib/python3/dist-packages/skimage/data .
 * libpng reads the sources, libjpeg (JDCT_ISLOW) and libpng write the results. */
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

typedef struct {
  int w, h, c;
  unsigned char *px;
} Img;

static Img read_png(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  png_image im;
  memset(&im, 0, sizeof im);
  im.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&im, path)) exit(fprintf(stderr, "%s: %s\n", path, im.message));
  Img r = {(int)im.width, (int)im.height, (im.format & PNG_FORMAT_FLAG_COLOR) ? 3 : 1, 0};
  im.format = r.c == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
  r.px = malloc(PNG_IMAGE_SIZE(im));
  if (!png_image_finish_read(&im, NULL, r.px, 0, NULL)) exit(fprintf(stderr, "%s\n", im.message));
  return r;
}

static Img read_jpeg(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) exit(fprintf(stderr, "cannot open %s\n", path));
  struct jpeg_decompress_struct d;
  struct jpeg_error_mgr err;
  d.err = jpeg_std_error(&err);
  jpeg_create_decompress(&d);
  jpeg_stdio_src(&d, f);
  jpeg_read_header(&d, TRUE);
  d.dct_method = JDCT_ISLOW;
  jpeg_start_decompress(&d);
  Img r = {(int)d.output_width, (int)d.output_height, d.output_components, 0};
  r.px = malloc((size_t)r.w * r.h * r.c);
  while (d.output_scanline < d.output_height) {
    JSAMPROW row = r.px + (size_t)d.output_scanline * r.w * r.c;
    jpeg_read_scanlines(&d, &row, 1);
  }
  jpeg_finish_decompress(&d);
  jpeg_destroy_decompress(&d);
  fclose(f);
  return r;
}

static void write_jpeg(const Img *im, int quality, int h, int v, const char *path) {
  FILE *f = fopen(path, "wb");
  struct jpeg_compress_struct c;
  struct jpeg_error_mgr err;
  c.err = jpeg_std_error(&err);
  jpeg_create_compress(&c);
  jpeg_stdio_dest(&c, f);
  c.image_width = im->w;
  c.image_height = im->h;
  c.input_components = im->c;
  c.in_color_space = im->c == 3 ? JCS_RGB : JCS_GRAYSCALE;
  jpeg_set_defaults(&c);
  c.dct_method = JDCT_ISLOW;
  jpeg_set_quality(&c, quality, TRUE);
  c.comp_info[0].h_samp_factor = h;
  c.comp_info[0].v_samp_factor = v;
  jpeg_start_compress(&c, TRUE);
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = im->px + (size_t)c.next_scanline * im->w * im->c;
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  fclose(f);
}

/* rows: bit_depth 8 or 16 (big-endian) samples; palette images pass their palette. */
static void write_png(const char *path, int w, int h, int type, int depth, unsigned char *rows,
                      size_t row_bytes, png_color *palette, int colours) {
  FILE *f = fopen(path, "wb");
  png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png_create_info_struct(p);
  png_init_io(p, f);
  png_set_IHDR(p, info, w, h, depth, type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  if (palette) png_set_PLTE(p, info, palette, colours);
  png_write_info(p, info);
  for (int y = 0; y < h; ++y) png_write_row(p, rows + (size_t)y * row_bytes);
  png_write_end(p, info);
  png_destroy_write_struct(&p, &info);
  fclose(f);
}

/* The 2x2 box average of channel k at (x, y) of the half-size image, in 1/4 steps of a sample. */
static int box4(const Img *im, int x, int y, int k) {
  const unsigned char *a = im->px + ((size_t)(2 * y) * im->w + 2 * x) * im->c + k;
  return a[0] + a[im->c] + a[(size_t)im->w * im->c] + a[(size_t)im->w * im->c + im->c];
}

int main(int argc, char **argv) {
  if (argc != 3) return fprintf(stderr, "usage: %s SKIMAGE_DATA_DIR OUT_DIR\n", argv[0]), 2;
  const char *src = argv[1];
  char out[1024];
#define OUT(name) (snprintf(out, sizeof out, "%s/%s", argv[2], name), out)
  Img astronaut = read_png(src, "astronaut.png"), coffee = read_png(src, "coffee.png");
  Img chelsea = read_png(src, "chelsea.png"), camera = read_png(src, "camera.png");
  Img rocket = read_jpeg(src, "rocket.jpg");
  write_jpeg(&astronaut, 90, 2, 2, OUT("astronaut-420.jpg"));
  write_jpeg(&coffee, 90, 2, 1, OUT("coffee-422.jpg"));
  write_jpeg(&chelsea, 95, 1, 1, OUT("chelsea-444.jpg"));
  write_jpeg(&camera, 90, 1, 1, OUT("camera-gray.jpg"));

  /* RGB, 8-bit: chelsea as it is. */
  write_png(OUT("chelsea-rgb.png"), chelsea.w, chelsea.h, PNG_COLOR_TYPE_RGB, 8, chelsea.px,
            (size_t)chelsea.w * 3, NULL, 0);
  /* RGBA, 8-bit: astronaut at half size, faded to transparent towards the corners. */
  int w = astronaut.w / 2, h = astronaut.h / 2;
  unsigned char *rgba = malloc((size_t)w * h * 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      unsigned char *o = rgba + ((size_t)y * w + x) * 4;
      for (int k = 0; k < 3; ++k) o[k] = (unsigned char)((box4(&astronaut, x, y, k) + 2) / 4);
      double dx = (x - w / 2.0) / (w / 2.0), dy = (y - h / 2.0) / (h / 2.0);
      double a = 1.6 - sqrt(dx * dx + dy * dy);
      o[3] = (unsigned char)(a >= 1 ? 255 : a <= 0 ? 0 : a * 255 + 0.5);
    }
  write_png(OUT("astronaut-rgba.png"), w, h, PNG_COLOR_TYPE_RGB_ALPHA, 8, rgba, (size_t)w * 4,
            NULL, 0);
  /* RGB, 16-bit: coffee at half size, each sample the 2x2 mean kept to 16 bits. */
  w = coffee.w / 2, h = coffee.h / 2;
  unsigned char *rgb16 = malloc((size_t)w * h * 6);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < 3; ++k) {
        unsigned v = (unsigned)(box4(&coffee, x, y, k) * 65535.0 / 1020.0 + 0.5);
        unsigned char *o = rgb16 + ((size_t)y * w + x) * 6 + 2 * k;
        o[0] = (unsigned char)(v >> 8), o[1] = (unsigned char)v;
      }
  write_png(OUT("coffee-rgb16.png"), w, h, PNG_COLOR_TYPE_RGB, 16, rgb16, (size_t)w * 6, NULL, 0);
  /* Palette, 8-bit: rocket at half size on a 6x6x6 colour cube. */
  png_color cube[216];
  for (int i = 0; i < 216; ++i)
    cube[i].red = (png_byte)(i / 36 * 51), cube[i].green = (png_byte)(i / 6 % 6 * 51),
    cube[i].blue = (png_byte)(i % 6 * 51);
  w = rocket.w / 2, h = rocket.h / 2;
  unsigned char *index = malloc((size_t)w * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int q[3];
      for (int k = 0; k < 3; ++k) q[k] = (box4(&rocket, x, y, k) / 4 + 25) / 51;
      index[(size_t)y * w + x] = (unsigned char)(q[0] * 36 + q[1] * 6 + q[2]);
    }
  write_png(OUT("rocket-palette.png"), w, h, PNG_COLOR_TYPE_PALETTE, 8, index, (size_t)w, cube,
            216);
  return 0;
}
