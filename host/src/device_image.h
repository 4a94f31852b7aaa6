// Images left in device memory brought back to the host on a queue the caller already has
// (download() in hetcodec/image.h makes one; Filters uses its own).
#ifndef HETCODEC_HOST_DEVICE_IMAGE_H
#define HETCODEC_HOST_DEVICE_IMAGE_H

#include "backends/backend.h"
#include "hetcodec/image.h"

namespace hetcodec::detail {

// `image`'s samples and description as an Image, read on `queue` and waited for. The caller
// has checked the image against its buffer.
Image download_on(Queue& queue, const DeviceImage& image);

}  // namespace hetcodec::detail

#endif  // HETCODEC_HOST_DEVICE_IMAGE_H
