/// The mutable object `namespace()` makes, whose attributes `{% set ns.x = ... %}` assigns.
final class TemplateNamespace {
    var attributes = TemplateDictionary()
}
