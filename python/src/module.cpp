// The Python extension `hetcodec._hetcodec` (nanobind): the C++ library's decoders and encoders
// behind the Python API of python/hetcodec/__init__.py. Images come back as numpy arrays that
// own the decoder's pixel vector (no copy beyond the one the decoder makes); the GIL is released
// while a decoder or encoder works; an Error becomes hetcodec.Error with its code.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "hetcodec/hetcodec.h"

namespace nb = nanobind;
using namespace hetcodec;

namespace {

using Array = nb::ndarray<nb::numpy>;
using Crop = std::optional<std::tuple<int, int, int, int>>;

// The bytes of a bytes-like Python object (bytes, bytearray, memoryview, a numpy uint8 array),
// through the buffer protocol: no copy. Valid while `view` lives.
struct Bytes {
  Py_buffer view{};
  explicit Bytes(nb::handle object) {
    if (PyObject_GetBuffer(object.ptr(), &view, PyBUF_SIMPLE) != 0) throw nb::python_error();
  }
  ~Bytes() { PyBuffer_Release(&view); }
  Bytes(const Bytes&) = delete;
  Bytes& operator=(const Bytes&) = delete;
  const std::uint8_t* data() const { return static_cast<const std::uint8_t*>(view.buf); }
  std::size_t size() const { return std::size_t(view.len); }
};

// hetcodec.Error, made when the module loads (a type that lives as long as the process: never
// released, so nothing runs at exit).
nb::handle error_type;

// Per file of a batch, its failure (code, message) or nothing.
using Failures = std::vector<std::optional<std::pair<std::string, std::string>>>;

std::vector<std::unique_ptr<Bytes>> bytes_of(const std::vector<nb::handle>& datas) {
  std::vector<std::unique_ptr<Bytes>> bytes;
  for (nb::handle h : datas) bytes.push_back(std::make_unique<Bytes>(h));
  return bytes;
}

// A batch call's results as a Python list, in the inputs' order: `run(bytes, failures)` (with
// the GIL released) gives the images, `convert` makes each a Python object, and a file that
// failed is a hetcodec.Error in its place.
template <typename Run, typename Convert>
nb::list batch_list(const std::vector<nb::handle>& datas, Run run, Convert convert) {
  const std::vector<std::unique_ptr<Bytes>> bytes = bytes_of(datas);
  Failures errors;
  decltype(run(bytes, errors)) images;
  {
    nb::gil_scoped_release release;
    images = run(bytes, errors);
  }
  nb::list out;
  for (std::size_t i = 0; i < images.size(); ++i) {
    if (errors[i])
      out.append(error_type(nb::str(errors[i]->first.c_str()), nb::str(errors[i]->second.c_str())));
    else
      out.append(convert(std::move(images[i])));
  }
  return out;
}

enum class Kind { Jpeg, Png, Unknown };
Kind kind_of(const std::uint8_t* d, std::size_t n) {
  if (n >= 3 && d[0] == 0xFF && d[1] == 0xD8 && d[2] == 0xFF) return Kind::Jpeg;
  static const std::uint8_t png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (n >= 8 && std::memcmp(d, png, 8) == 0) return Kind::Png;
  return Kind::Unknown;
}

// An image as an array of height x width x channels, uint8 or (16-bit samples, turned from the
// library's big-endian to the machine's order in place) uint16, owning the pixels.
Array to_array(Image&& image) {
  auto* pixels = new std::vector<std::uint8_t>(std::move(image.pixels));
  nb::capsule owner(pixels,
                    [](void* p) noexcept { delete static_cast<std::vector<std::uint8_t>*>(p); });
  const std::size_t shape[3] = {std::size_t(image.height), std::size_t(image.width),
                                std::size_t(image.channels())};
  if (image.bit_depth == 16) {
    for (std::size_t i = 0; i + 1 < pixels->size(); i += 2)
      std::swap((*pixels)[i], (*pixels)[i + 1]);
    return Array(pixels->data(), 3, shape, owner, nullptr, nb::dtype<std::uint16_t>());
  }
  return Array(pixels->data(), 3, shape, owner, nullptr, nb::dtype<std::uint8_t>());
}

// An image a decoder left in its device's memory (output="device"), with the device that holds
// it: handed to other libraries through DLPack (nanobind's nb_ndarray, which implements
// __dlpack__ and __dlpack_device__) or brought back to the host as a numpy array.
struct OnDevice {
  std::shared_ptr<Device> device;
  DeviceImage image;

  std::tuple<int, int, int> shape() const { return {image.height, image.width, image.channels()}; }
  // The samples as a DLPack-capable array that keeps the device buffer alive. 8-bit images
  // only: 16-bit samples lie big-endian in device memory, as the library keeps them.
  nb::ndarray<nb::array_api> dlpack() const {
    if (image.bit_depth != 8)
      throw Error(ErrorCode::Unsupported,
                  "a 16-bit image's samples lie big-endian in device memory: bring it to the host "
                  "with .numpy() (or decode with output=\"host\")");
    const NativeMemory m = native_memory(device, image);
    if (m.kind == DeviceKind::OpenCL)
      throw Error(ErrorCode::Unsupported,
                  "OpenCL memory (" + device_info(*device).spec +
                      ") has no DLPack consumer: bring it to the host with .numpy(), or decode on "
                      "a CUDA device or the CPU");
    auto* keep = new DeviceImage(image);
    nb::capsule owner(keep, [](void* p) noexcept { delete static_cast<DeviceImage*>(p); });
    const std::size_t dims[3] = {std::size_t(image.height), std::size_t(image.width),
                                 std::size_t(image.channels())};
    void* data = static_cast<std::uint8_t*>(m.handle) + m.offset;
    const bool cuda = m.kind == DeviceKind::Cuda;
    return nb::ndarray<nb::array_api>(data, 3, dims, owner, nullptr, nb::dtype<std::uint8_t>(),
                         cuda ? nb::device::cuda::value : nb::device::cpu::value,
                         cuda ? m.ordinal : 0);
  }
  // The address of the first sample on a CUDA device (for __cuda_array_interface__), else 0.
  std::uintptr_t cuda_pointer() const {
    const NativeMemory m = native_memory(device, image);
    if (m.kind != DeviceKind::Cuda) return 0;
    return reinterpret_cast<std::uintptr_t>(m.handle) + m.offset;
  }
};

Input input_of(const Bytes& b, const Crop& crop) {
  Input in{b.data(), b.size()};
  if (crop) {
    const auto& [x, y, w, h] = *crop;
    in.crop = Region{x, y, w, h};
  }
  return in;
}

// A batch's files by format, each with its index among the inputs; the others failed in
// `errors` (which is sized to the inputs).
struct Split {
  std::vector<Input> jpegs, pngs;
  std::vector<std::size_t> jpeg_at, png_at;
};
void fail(Failures& errors, std::size_t i, const Error& e) {
  errors[i] = std::make_pair(std::string(to_string(e.code())), std::string(e.what()));
}
Split split_by_format(const std::vector<std::unique_ptr<Bytes>>& datas, Failures& errors) {
  Split s;
  errors.assign(datas.size(), std::nullopt);
  for (std::size_t i = 0; i < datas.size(); ++i) {
    const Bytes& b = *datas[i];
    switch (kind_of(b.data(), b.size())) {
      case Kind::Jpeg:
        s.jpegs.push_back({b.data(), b.size()});
        s.jpeg_at.push_back(i);
        break;
      case Kind::Png:
        s.pngs.push_back({b.data(), b.size()});
        s.png_at.push_back(i);
        break;
      default:
        fail(errors, i,
             Error(ErrorCode::InvalidData, "neither a JPEG nor a PNG file (by its first bytes)"));
    }
  }
  return s;
}

// One decoder for every format, found from the bytes: a JPEG decoder and a PNG decoder on the
// same device, each made when its first file comes. A mutex per format makes a Decoder safe to
// share between threads (each format's files are decoded one call at a time).
class Decoder {
 public:
  Decoder(const std::string& device, int scale, std::uint64_t max_pixels, int threads,
          bool reuse_device_buffers)
      : device_(open_device(device == "auto" ? "" : device)), reuse_(reuse_device_buffers) {
    jpeg_options_.scale_denom = scale;
    jpeg_options_.max_pixels = png_options_.max_pixels = max_pixels;
    jpeg_options_.threads = threads;
    if (threads > 0) png_options_.threads = threads;
    jpeg_ = std::make_unique<JpegDecoder>(device_, jpeg_options_);  // (checks the scale now)
  }

  std::string device() const { return device_info(*device_).spec; }

  Image decode_one(const Bytes& b, const Crop& crop) {
    switch (kind_of(b.data(), b.size())) {
      case Kind::Jpeg: {
        std::lock_guard<std::mutex> lock(jpeg_mutex_);
        return jpeg_->decode(input_of(b, crop));
      }
      case Kind::Png: {
        if (crop)
          throw Error(ErrorCode::InvalidArgument, "crop takes JPEG files only; this is a PNG");
        std::lock_guard<std::mutex> lock(png_mutex_);
        return png().decode(b.data(), b.size());
      }
      default:
        throw Error(ErrorCode::InvalidData, "neither a JPEG nor a PNG file (by its first bytes)");
    }
  }

  // The same, left in the device's memory.
  OnDevice decode_one_to_device(const Bytes& b, const Crop& crop) {
    switch (kind_of(b.data(), b.size())) {
      case Kind::Jpeg: {
        std::lock_guard<std::mutex> lock(jpeg_mutex_);
        return {device_, jpeg_->decode_to_device(input_of(b, crop))};
      }
      case Kind::Png: {
        if (crop)
          throw Error(ErrorCode::InvalidArgument, "crop takes JPEG files only; this is a PNG");
        std::lock_guard<std::mutex> lock(png_mutex_);
        return {device_, png().decode_to_device(b.data(), b.size())};
      }
      default:
        throw Error(ErrorCode::InvalidData, "neither a JPEG nor a PNG file (by its first bytes)");
    }
  }

  // Every file of `datas`: the JPEG files through the pipelined batch path, the PNG files through
  // theirs. Failures come back as (code, message) in `errors`, in the inputs' order.
  std::vector<Image> decode_many(const std::vector<std::unique_ptr<Bytes>>& datas,
                                 Failures& errors) {
    std::vector<Image> out(datas.size());
    const Split split = split_by_format(datas, errors);
    auto run = [&](auto& decoder, std::mutex& m, const std::vector<Input>& inputs,
                   const std::vector<std::size_t>& at) {
      if (inputs.empty()) return;
      BatchErrors failed;
      std::vector<Image> images;
      {
        std::lock_guard<std::mutex> lock(m);
        images = decoder.decode_batch(inputs, &failed);
      }
      for (std::size_t k = 0; k < inputs.size(); ++k) {
        if (failed[k])
          fail(errors, at[k], *failed[k]);
        else
          out[at[k]] = std::move(images[k]);
      }
    };
    run(*jpeg_, jpeg_mutex_, split.jpegs, split.jpeg_at);
    if (!split.pngs.empty()) run(png(), png_mutex_, split.pngs, split.png_at);
    return out;
  }

  // The same, left in the device's memory: the JPEG files in one buffer (decode_batch_to_device:
  // each image keeps the whole buffer alive), each PNG file in its own.
  std::vector<OnDevice> decode_many_to_device(const std::vector<std::unique_ptr<Bytes>>& datas,
                                              Failures& errors) {
    std::vector<OnDevice> out(datas.size());
    const Split split = split_by_format(datas, errors);
    for (std::size_t k = 0; k < split.pngs.size(); ++k) {
      try {
        std::lock_guard<std::mutex> lock(png_mutex_);
        out[split.png_at[k]] = {device_,
                                png().decode_to_device(split.pngs[k].data, split.pngs[k].size)};
      } catch (const Error& e) {
        fail(errors, split.png_at[k], e);
      }
    }
    if (!split.jpegs.empty()) {
      BatchErrors failed;
      std::vector<DeviceImage> images;
      {
        std::lock_guard<std::mutex> lock(jpeg_mutex_);
        if (!reuse_) {
          images = jpeg_->decode_batch_to_device(split.jpegs, &failed);
        } else {
          // A buffer of an earlier batch that no array holds any more (this list alone does),
          // when there is one: the batch decodes into it where it is large enough (a larger one
          // is made otherwise, and the smaller freed). Allocating and freeing the output every
          // batch is what CUDA's cudaFree makes slow: it waits for the whole device, at
          // whatever moment the last array of a batch is released.
          // The newest free buffer is offered; the other free ones are freed.
          std::shared_ptr<DeviceBuffer> free;
          for (auto it = outputs_.rbegin(); it != outputs_.rend(); ++it)
            if (it->use_count() == 1 && !free) free = *it;
          std::atomic_thread_fence(std::memory_order_acquire);  // (the arrays' last reads)
          outputs_.erase(std::remove_if(outputs_.begin(), outputs_.end(),
                                        [&](const std::shared_ptr<DeviceBuffer>& b) {
                                          return b.use_count() == 1 && b != free;
                                        }),
                         outputs_.end());
          // (another library's kernels may still read the memory it let go of)
          if (free) wait_idle(*device_);
          std::shared_ptr<DeviceBuffer> buffer = free;
          try {
            images = jpeg_->decode_batch_to_device(split.jpegs, &failed, &buffer);
          } catch (const Error& e) {
            // Out of memory with a free buffer too small for the batch held: without it.
            if (!free || buffer != free ||
                (e.code() != ErrorCode::OutOfMemory && e.code() != ErrorCode::LimitExceeded))
              throw;
            outputs_.erase(std::find(outputs_.begin(), outputs_.end(), free));
            free.reset();
            buffer.reset();
            images = jpeg_->decode_batch_to_device(split.jpegs, &failed, &buffer);
          }
          if (buffer != free) {
            if (free) outputs_.erase(std::find(outputs_.begin(), outputs_.end(), free));
            outputs_.push_back(buffer);
            // (at most kOutputs kept: the oldest let go of, freed with their last array)
            if (outputs_.size() > kOutputs) outputs_.erase(outputs_.begin());
          }
        }
      }
      for (std::size_t k = 0; k < split.jpegs.size(); ++k) {
        if (failed[k])
          fail(errors, split.jpeg_at[k], *failed[k]);
        else
          out[split.jpeg_at[k]] = {device_, std::move(images[k])};
      }
    }
    return out;
  }

 private:
  PngDecoder& png() {
    std::call_once(png_once_,
                   [this] { png_ = std::make_unique<PngDecoder>(device_, png_options_); });
    return *png_;
  }
  std::shared_ptr<Device> device_;
  JpegDecodeOptions jpeg_options_;
  PngDecodeOptions png_options_;
  std::unique_ptr<JpegDecoder> jpeg_;
  std::unique_ptr<PngDecoder> png_;
  std::once_flag png_once_;
  std::mutex jpeg_mutex_, png_mutex_;
  // The output buffers of decode_many_to_device's batches, for reuse (under jpeg_mutex_).
  static constexpr std::size_t kOutputs = 4;
  bool reuse_ = true;
  std::vector<std::shared_ptr<DeviceBuffer>> outputs_;
};

JpegSampling sampling_of(const std::string& s) {
  if (s == "444") return JpegSampling::S444;
  if (s == "422") return JpegSampling::S422;
  if (s == "420") return JpegSampling::S420;
  if (s == "440") return JpegSampling::S440;
  if (s == "gray") return JpegSampling::Gray;
  throw Error(ErrorCode::InvalidArgument,
              "sampling '" + s + "' (444, 422, 420, 440 or gray, as cjpeg -sample)");
}

// An encoder of one format: PNG (libpng's compatible file, or the parallel mode) or JPEG
// (libjpeg-turbo's file for the same settings).
class Encoder {
 public:
  Encoder(const std::string& device, const std::string& format, int quality,
          const std::string& sampling, bool optimize, int restart, const std::string& png_mode)
      : format_(format) {
    auto d = open_device(device == "auto" ? "" : device);
    if (format == "jpeg") {
      JpegEncodeOptions o;
      o.quality = quality;
      o.sampling = sampling_of(sampling);
      o.optimize = optimize;
      o.restart_interval = restart;
      jpeg_ = std::make_unique<JpegEncoder>(d, o);
    } else if (format == "png") {
      PngEncodeOptions o;
      if (png_mode == "compatible")
        o.mode = PngMode::Compatible;
      else if (png_mode == "parallel")
        o.mode = PngMode::Parallel;
      else if (png_mode == "small")
        o.mode = PngMode::Small;
      else
        throw Error(ErrorCode::InvalidArgument,
                    "png_mode '" + png_mode + "' (compatible, parallel or small)");
      png_ = std::make_unique<PngEncoder>(d, o);
    } else {
      throw Error(ErrorCode::InvalidArgument, "format '" + format + "' (png or jpeg)");
    }
  }

  std::vector<std::uint8_t> encode(const Image& image) {
    std::lock_guard<std::mutex> lock(mutex_);
    return jpeg_ ? jpeg_->encode(image) : png_->encode(image);
  }
  const std::string& format() const { return format_; }

 private:
  std::string format_;
  std::unique_ptr<JpegEncoder> jpeg_;
  std::unique_ptr<PngEncoder> png_;
  std::mutex mutex_;
};

// An array of height x width [x channels] (1 to 4 channels; uint8, or uint16 for PNG) as an
// Image: the samples copied (to the big-endian order of 16-bit samples the library takes).
Image image_of(nb::ndarray<nb::c_contig, nb::device::cpu> a) {
  if (a.ndim() != 2 && a.ndim() != 3)
    throw Error(ErrorCode::InvalidArgument,
                "an image array is height x width or height x width x channels (got " +
                    std::to_string(a.ndim()) + " dimensions)");
  const std::size_t c = a.ndim() == 3 ? a.shape(2) : 1;
  if (c < 1 || c > 4)
    throw Error(ErrorCode::InvalidArgument, "1 to 4 channels (got " + std::to_string(c) + ")");
  const bool u8 = a.dtype() == nb::dtype<std::uint8_t>(),
             u16 = a.dtype() == nb::dtype<std::uint16_t>();
  if (!u8 && !u16) throw Error(ErrorCode::InvalidArgument, "samples of uint8 or uint16");
  Image im;
  im.height = int(a.shape(0));
  im.width = int(a.shape(1));
  im.format = png_format(int(c));
  im.bit_depth = u8 ? 8 : 16;
  const auto* p = static_cast<const std::uint8_t*>(a.data());
  im.pixels.assign(p, p + a.nbytes());
  if (u16)
    for (std::size_t i = 0; i + 1 < im.pixels.size(); i += 2)
      std::swap(im.pixels[i], im.pixels[i + 1]);
  return im;
}

}  // namespace

NB_MODULE(_hetcodec, m) {
  m.doc() = "hetcodec's C++ decoders and encoders (the Python API is in hetcodec/__init__.py)";

  // hetcodec::Error as hetcodec.Error(code, message): the code a string such as
  // "invalid data", "limit exceeded", "out of memory".
  // (A type that lives as long as the process: never released, so nothing runs at exit.)
  error_type = PyErr_NewException("hetcodec._hetcodec.Error", PyExc_RuntimeError, nullptr);
  m.attr("Error") = error_type;
  nb::register_exception_translator(
      [](const std::exception_ptr& p, void*) {
        try {
          std::rethrow_exception(p);
        } catch (const Error& e) {
          nb::object err = error_type(nb::str(to_string(e.code())), nb::str(e.what()));
          PyErr_SetObject(error_type.ptr(), err.ptr());
        }
      },
      nullptr);

  m.def("version", [] { return std::string(version()); });
  m.def("devices", [] {
    std::vector<nb::dict> out;
    for (const DeviceInfo& d : list_devices()) {
      nb::dict e;
      e["spec"] = d.spec;
      e["kind"] = std::string(to_string(d.kind));
      e["name"] = d.name;
      e["platform"] = d.platform;
      e["memory_bytes"] = d.memory_bytes;
      e["is_gpu"] = d.is_gpu;
      e["is_emulator"] = d.is_emulator;
      out.push_back(e);
    }
    return out;
  });
  m.def("auto_device", [] { return auto_device().spec; });

  nb::class_<OnDevice>(m, "DeviceImage")
      .def_prop_ro("shape", &OnDevice::shape)
      .def_prop_ro("bit_depth", [](const OnDevice& d) { return d.image.bit_depth; })
      .def_prop_ro("format", [](const OnDevice& d) { return std::string(to_string(d.image.format)); })
      .def_prop_ro("warnings", [](const OnDevice& d) { return d.image.warnings; })
      .def_prop_ro("device", [](const OnDevice& d) { return device_info(*d.device).spec; })
      .def_prop_ro("kind",
                   [](const OnDevice& d) { return std::string(to_string(device_info(*d.device).kind)); })
      .def("dlpack", &OnDevice::dlpack)
      .def_prop_ro("cuda_pointer", &OnDevice::cuda_pointer)
      .def("download", [](const OnDevice& d) {
        Image im;
        {
          nb::gil_scoped_release release;
          im = download(d.device, d.image);
        }
        return to_array(std::move(im));
      });

  nb::class_<Decoder>(m, "Decoder")
      .def(nb::init<const std::string&, int, std::uint64_t, int, bool>(),
           nb::arg("device") = "auto", nb::arg("scale") = 1,
           nb::arg("max_pixels") = std::uint64_t(1) << 28, nb::arg("threads") = 0,
           nb::arg("reuse_device_buffers") = true)
      .def_prop_ro("device", &Decoder::device)
      .def(
          "decode",
          [](Decoder& d, nb::handle data, Crop crop) {
            Bytes b(data);
            Image im;
            {
              nb::gil_scoped_release release;
              im = d.decode_one(b, crop);
            }
            std::vector<std::string> warnings = im.warnings;
            const int bits = im.bit_depth;
            const std::string format = to_string(im.format);
            return std::make_tuple(to_array(std::move(im)), warnings, format, bits);
          },
          nb::arg("data"), nb::arg("crop") = nb::none())
      .def(
          "decode_to_device",
          [](Decoder& d, nb::handle data, Crop crop) {
            Bytes b(data);
            nb::gil_scoped_release release;
            return d.decode_one_to_device(b, crop);
          },
          nb::arg("data"), nb::arg("crop") = nb::none())
      .def(
          "decode_batch_to_device",
          [](Decoder& d, const std::vector<nb::handle>& datas) {
            return batch_list(
                datas, [&](auto& bytes, auto& errors) { return d.decode_many_to_device(bytes, errors); },
                [](OnDevice&& im) { return nb::cast(std::move(im)); });
          },
          nb::arg("datas"))
      .def(
          "native_batch_seconds",
          [](Decoder& d, const std::vector<nb::handle>& datas, int repeats, bool device) {
            // decode_batch's C++ work alone (to host arrays, or with `device` to device ones),
            // `repeats` times (hetcodec.bench: the binding's overhead is the rest of a
            // decode_batch call).
            const std::vector<std::unique_ptr<Bytes>> bytes = bytes_of(datas);
            nb::gil_scoped_release release;
            Failures errors;
            // Each repetition's images are let go of once the next has come, as a Python loop
            // that keeps its last result lets them go (freeing them first would time the
            // allocator's fresh pages instead).
            std::vector<Image> images;
            std::vector<OnDevice> on_device;
            const auto t0 = std::chrono::steady_clock::now();
            for (int r = 0; r < repeats; ++r) {
              if (device) {
                std::vector<OnDevice> next = d.decode_many_to_device(bytes, errors);
                on_device = std::move(next);
              } else {
                std::vector<Image> next = d.decode_many(bytes, errors);
                images = std::move(next);
              }
            }
            const auto t1 = std::chrono::steady_clock::now();
            images.clear();
            on_device.clear();
            return std::chrono::duration<double>(t1 - t0).count();
          },
          nb::arg("datas"), nb::arg("repeats") = 1, nb::arg("device") = false)
      .def(
          "decode_batch",
          [](Decoder& d, const std::vector<nb::handle>& datas) {
            return batch_list(
                datas, [&](auto& bytes, auto& errors) { return d.decode_many(bytes, errors); },
                [](Image&& im) { return nb::cast(to_array(std::move(im))); });
          },
          nb::arg("datas"));

  nb::class_<Encoder>(m, "Encoder")
      .def(nb::init<const std::string&, const std::string&, int, const std::string&, bool, int,
                    const std::string&>(),
           nb::arg("device") = "auto", nb::arg("format") = "png", nb::arg("quality") = 75,
           nb::arg("sampling") = "420", nb::arg("optimize") = false, nb::arg("restart") = 0,
           nb::arg("png_mode") = "parallel")
      .def_prop_ro("format", &Encoder::format)
      .def(
          "encode",
          [](Encoder& e, nb::ndarray<nb::c_contig, nb::device::cpu> a) {
            Image im = image_of(a);
            std::vector<std::uint8_t> file;
            {
              nb::gil_scoped_release release;
              file = e.encode(im);
            }
            return nb::bytes(reinterpret_cast<const char*>(file.data()), file.size());
          },
          nb::arg("image"));
}
