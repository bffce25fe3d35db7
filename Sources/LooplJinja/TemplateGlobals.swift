/// The functions every template sees: `range`, `namespace`, `dict`, `joiner`, `cycler`, and transformers'
/// `raise_exception` and `strftime_now`.
enum TemplateGlobals {
    /// The global called `name`, made when a template first uses it.
    static func value(_ name: String, renderer: TemplateRenderer) -> TemplateValue? {
        let now = renderer.now
        let function: TemplateFunction? = switch name {
        case "range": range(maxItems: renderer.limits.maxIterations)
        case "namespace": namespace(renderer)
        case "dict": dict()
        case "joiner": joiner()
        case "cycler": cycler(renderer)
        case "raise_exception": TemplateFunction("raise_exception") { arguments in
                throw TemplateFailure(arguments.value(0, "message")?.text ?? "", raised: true)
            }
        case "strftime_now": TemplateFunction("strftime_now") { arguments in
                .string(now.format(arguments.value(0, "format")?.text ?? ""))
            }
        default: nil
        }
        return function.map { .function($0) }
    }

    /// `range(stop)`, `range(start, stop[, step])`, refusing more than `maxItems` items.
    private static func range(maxItems: Int) -> TemplateFunction {
        TemplateFunction("range") { arguments in
            let numbers = try arguments.positional.map { value -> Int in
                guard case .int(let i) = value.exactNumber ?? .none else {
                    throw TemplateFailure("'\(value.typeName)' object cannot be interpreted as an integer")
                }
                return i
            }
            let (start, stop, step): (Int, Int, Int) = switch numbers.count {
            case 1: (0, numbers[0], 1)
            case 2: (numbers[0], numbers[1], 1)
            case 3: (numbers[0], numbers[1], numbers[2])
            default: throw TemplateFailure("range expected 1 to 3 integer arguments, got \(numbers.count)")
            }
            guard step != 0 else { throw TemplateFailure("range() arg 3 must not be zero") }
            let count = max(0, ((Double(stop) - Double(start)) / Double(step)).rounded(.up))
            guard count <= Double(maxItems) else { throw TemplateFailure("range of \(Int(min(count, 9e18))) items is too large") }
            return .list(stride(from: start, to: stop, by: step).map { .int($0) })
        }
    }

    /// `namespace(...)`: a mutable object, emptied when the render ends.
    private static func namespace(_ renderer: TemplateRenderer) -> TemplateFunction {
        TemplateFunction("namespace") { [unowned renderer] arguments in
            let namespace = TemplateNamespace()
            renderer.namespaces.append(namespace)
            for value in arguments.positional {
                guard case .dict(let d) = value else { throw TemplateFailure("namespace() takes keyword arguments or a dict") }
                for (key, item) in d { namespace.attributes[key] = item }
            }
            for (key, item) in arguments.keywords { namespace.attributes[key] = item }
            return .namespace(namespace)
        }
    }

    /// `dict(...)`: a dict of the given dicts and keyword arguments.
    private static func dict() -> TemplateFunction {
        TemplateFunction("dict") { arguments in
            var dictionary = TemplateDictionary()
            for value in arguments.positional {
                guard case .dict(let d) = value else { throw TemplateFailure("dict() takes keyword arguments or a dict") }
                for (key, item) in d { dictionary[key] = item }
            }
            for (key, item) in arguments.keywords { dictionary[key] = item }
            return .dict(dictionary)
        }
    }

    /// `joiner(sep)`: a function that gives "" the first time and `sep` after.
    private static func joiner() -> TemplateFunction {
        TemplateFunction("joiner") { arguments in
            let separator = arguments.value(0, "sep") ?? .string(", ")
            var used = false
            return .function(TemplateFunction("joiner") { _ in
                defer { used = true }
                return used ? separator : .string("")
            })
        }
    }

    /// `cycler(items...)`: a namespace whose `current` moves on with each `next()`.
    private static func cycler(_ renderer: TemplateRenderer) -> TemplateFunction {
        TemplateFunction("cycler") { [unowned renderer] arguments in
            let items = arguments.positional
            guard !items.isEmpty else { throw TemplateFailure("at least one item has to be provided") }
            let cycler = TemplateNamespace()
            renderer.namespaces.append(cycler)
            var position = 0
            cycler.attributes["current"] = items[0]
            cycler.attributes["next"] = .function(TemplateFunction("next") { [unowned cycler] _ in
                defer {
                    position = (position + 1) % items.count
                    cycler.attributes["current"] = items[position]
                }
                return items[position]
            })
            cycler.attributes["reset"] = .function(TemplateFunction("reset") { [unowned cycler] _ in
                position = 0
                cycler.attributes["current"] = items[0]
                return .none
            })
            return .namespace(cycler)
        }
    }
}
