// The smallest host application, on the installed public API alone: list the devices, open the
// one `auto` picks (or argv[1]), encode a small image as PNG there, ask the decoder what the file
// holds, decode it, and check that the samples came back; then encode it as JPEG and decode that.
#include <hetcodec/hetcodec.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  try {
    for (const auto& d : hetcodec::list_devices())
      std::printf("%s\t%s\n", d.spec.c_str(), d.name.c_str());
    auto device = hetcodec::open_device(argc > 1 ? argv[1] : "auto");
    hetcodec::Image image;
    image.width = 17;
    image.height = 5;
    image.format = hetcodec::PixelFormat::RGB;
    for (int i = 0; i < image.width * image.height * 3; ++i)
      image.pixels.push_back(std::uint8_t(i * 7));
    hetcodec::PngEncoder encoder(device);
    const std::vector<std::uint8_t> file = encoder.encode(image);
    hetcodec::PngDecoder decoder(device);
    const hetcodec::ImageInfo info = decoder.info(file.data(), file.size());
    const hetcodec::Image back = decoder.decode(file.data(), file.size());
    std::printf("hetcodec %s on %s: %d-byte PNG of %dx%d %s, decoded %s\n", hetcodec::version(),
                hetcodec::device_info(*device).spec.c_str(), int(file.size()), info.width,
                info.height, hetcodec::to_string(info.format),
                back.pixels == image.pixels ? "equal" : "DIFFERENT");
    hetcodec::JpegEncoder jpeg_encoder(device);
    const std::vector<std::uint8_t> jpeg = jpeg_encoder.encode(back);
    const hetcodec::Image photo = hetcodec::JpegDecoder(device).decode(jpeg);
    std::printf("%d-byte JPEG, decoded to %dx%d\n", int(jpeg.size()), photo.width, photo.height);
    return back.pixels == image.pixels && info.width == 17 && info.height == 5 &&
                   photo.width == 17 && photo.height == 5
               ? 0
               : 1;
  } catch (const hetcodec::Error& e) {
    std::fprintf(stderr, "error: %s: %s\n", hetcodec::to_string(e.code()), e.what());
    return 1;
  }
}
