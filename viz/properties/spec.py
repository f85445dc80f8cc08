"""The spec's sentences (logical_relations / physical_relations, "Property Maintenance") that each
derived effect cites."""


class Spec:
    READ = (
        "Read: Output Properties: Declaration of orderedness and/or distribution properties this read "
        "produces. Optional, defaults to no properties."
    )
    FILTER = "Filter: Orderedness, Distribution, remapped by emit"
    SORT_ORDER = "Sort: Will update orderedness property to the output of the sort operation."
    SORT_DIST = "Sort: Distribution property only remapped based on emit."
    TOP_N_ORDER = "Top-N: Will update orderedness property to the output of the sort operation."
    TOP_N_DIST = "Top-N: Distribution property only remapped based on emit."
    FETCH = "Fetch: Maintains distribution and orderedness."
    PROJECT_ORDER = (
        "Project: Orderedness: Maintained if no window operations. Extended to include projection fields "
        "if fields are direct references."
    )
    PROJECT_WINDOW = "Project: If window operations are present, no orderedness is maintained."
    PROJECT_DIST = "Project: Distribution maintained, mapped by emit."
    CROSS_ORDER = "Cross Product: Orderedness is empty post operation."
    CROSS_DIST = "Cross Product: Distribution is maintained."
    JOIN_ORDER = (
        "Join: Orderedness is empty post operation. Physical relations may provide better property maintenance."
    )
    JOIN_DIST = "Join: Distribution is maintained."
    SET_ORDER = "Set: Orderedness is not maintained."
    SET_DIST = "Set: Maintains distribution if all inputs have the same ordinal distribution."
    AGGREGATE_ORDER = "Aggregate: No orderedness guaranteed."
    AGGREGATE_DIST = "Aggregate: Maintains distribution if all distribution fields are contained in every grouping set."
    REFERENCE = "Reference: Maintains all properties of the input"
    WRITE = "Write: Output depends on OutputMode (none, or modified records)"
    DDL = "DDL: N/A (no output)"
    UPDATE = "Update: the spec gives no property row; it outputs no properties"
    HASH_JOIN_ORDER = (
        "Hash Equijoin: Orderedness of the left set is maintained in INNER join cases, otherwise it is eliminated."
    )
    HASH_JOIN_DIST = "Hash Equijoin: Distribution is maintained."
    MERGE_JOIN_ORDER = "Merge Equijoin: Orderedness is eliminated."
    MERGE_JOIN_DIST = "Merge Equijoin: Distribution is maintained."
    NLJ_ORDER = "NLJ: Orderedness is eliminated."
    NLJ_DIST = "NLJ: Distribution is maintained."
    EXCHANGE_ORDER = "Exchange: Orderedness is maintained."
    EXCHANGE_DIST = "Exchange: Distribution is overwritten based on configuration."
    WINDOW = "Consistent Partition Window: Maintains distribution and ordering."
    EXPAND_ORDER = "Expand: Ordering can only be maintained down to the level of consistent fields that are kept."
    EXPAND_DIST = (
        "Expand: Distribution is maintained if all the distribution fields are consistent fields with "
        "direct references."
    )
    EXTENSION = "Extension relations have no property row in the spec; their properties are unknown to this tool"
    UNSUPPORTED = "this relation kind is not understood; its properties are unknown"
    ENHANCEMENT = "An enhancement changes what a relation means; its properties are unknown to this tool"
    EMIT = "remapped by emit"


#: Rules that are this tool's words where the spec has none, not a quote of it.
_OWN_WORDS = (Spec.UPDATE, Spec.EXTENSION, Spec.UNSUPPORTED, Spec.ENHANCEMENT)


def cited(rule: str) -> str:
    """A rule as a person reads it under a property: the spec's words quoted, with the relation whose
    "Property Maintenance" they are (``The spec, Filter: “Orderedness, Distribution, remapped by
    emit”``); this tool's own words as they are."""
    relation, sep, words = rule.partition(": ")
    if rule in _OWN_WORDS or not sep:
        return rule[:1].upper() + rule[1:]
    ours = f" ({Spec.EMIT})"  # this tool's addition to the spec's sentence, outside its quotation marks
    if words.endswith(ours):
        return f"The spec, {relation}: “{words.removesuffix(ours)}”{ours}"
    return f"The spec, {relation}: “{words}”"
