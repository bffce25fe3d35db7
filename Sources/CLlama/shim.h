#include <llama.h>
#include <ggml-cpu.h>
