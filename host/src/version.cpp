// hetcodec::version().
#include "hetcodec/hetcodec.h"

namespace hetcodec {
const char* version() { return HETCODEC_VERSION; }
}  // namespace hetcodec
