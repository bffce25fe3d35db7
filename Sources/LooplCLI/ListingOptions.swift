/// The options of the commands that list what is configured (`backends`, `tools`): `--config FILE` and `--json`.
struct ListingOptions: Sendable {
    var config: String?
    var json: Bool

    init(arguments: inout Arguments) throws(UsageError) {
        config = try arguments.option("config")
        json = arguments.flag("json")
    }
}
