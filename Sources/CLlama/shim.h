#include <llama.h>
#include <ggml-cpu.h>
#include <gguf.h>
