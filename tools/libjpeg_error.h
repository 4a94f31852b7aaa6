// The tools' libjpeg error manager: an error longjmps back to the caller's setjmp instead of
// exiting the process (libjpeg's default). The caller includes <cstdio> and jpeglib.h first.
#ifndef HETCODEC_TOOLS_LIBJPEG_ERROR_H
#define HETCODEC_TOOLS_LIBJPEG_ERROR_H

#include <csetjmp>

namespace hetcodec::tools {

struct JpegErr {
  jpeg_error_mgr pub;
  std::jmp_buf jump;
};
inline void jpeg_fail(j_common_ptr c) {
  std::longjmp(reinterpret_cast<JpegErr*>(c->err)->jump, 1);
}

}  // namespace hetcodec::tools

#endif  // HETCODEC_TOOLS_LIBJPEG_ERROR_H
