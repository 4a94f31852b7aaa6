// The smallest host application: list the devices, open the one `auto` picks (or argv[1]),
// and run one kernel there.
#include <hetcodec/hetcodec.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  try {
    for (const auto& d : hetcodec::list_devices())
      std::printf("%s\t%s\n", d.spec.c_str(), d.name.c_str());
    auto device = hetcodec::open_device(argc > 1 ? argv[1] : "auto");
    auto queue = device->create_queue();
    const std::uint8_t ycc[3] = {128, 128, 255};  // one pixel: Y, Cb, Cr
    auto d_ycc = device->alloc(3), d_rgb = device->alloc(3);
    queue->write(*d_ycc, 0, ycc, 3);
    device->jpeg().ycc_to_rgb(*queue, *d_ycc, *d_rgb, 1);
    std::uint8_t rgb[3];
    queue->read(rgb, *d_rgb, 0, 3);
    std::printf("hetcodec %s on %s: YCbCr(128,128,255) -> RGB(%d,%d,%d)\n", hetcodec::version(),
                device->info().spec.c_str(), rgb[0], rgb[1], rgb[2]);
    return rgb[0] == 255 && rgb[1] == 37 && rgb[2] == 128 ? 0 : 1;
  } catch (const hetcodec::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
