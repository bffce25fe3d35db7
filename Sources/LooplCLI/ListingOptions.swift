/// The options of the commands that list what is configured (`backends`, `tools`): `--config FILE` and `--json`.
struct ListingOptions: Sendable {
    var config: String?
    var json: Bool

    /// Their help lines; `json` says what `--json` prints.
    static func help(json: String) -> String {
        """
          --config FILE   The configuration file (see loopl run --help).
          --json          Print one JSON object\(json).
          -h, --help      Show this help.
        """
    }

    init(arguments: inout Arguments) throws(UsageError) {
        config = try arguments.option("config")
        json = arguments.flag("json")
    }
}
