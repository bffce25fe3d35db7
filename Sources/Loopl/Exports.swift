// Users of Loopl see JSON values and the template engine's value types without importing them.
@_exported import LooplJSON
@_exported import LooplJinja
