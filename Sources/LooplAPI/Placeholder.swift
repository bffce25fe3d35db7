import LooplHTTP
