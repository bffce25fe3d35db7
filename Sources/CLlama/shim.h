#include <llama.h>
