// Loopl's own HTTP/1.1 server: see HTTPServer.swift.
