// zlib, for Analytics' gzip'd uploads: part of every Apple SDK, Debian's zlib1g-dev on Linux.
#include <zlib.h>
