"""Word lists and limits the decomposer's rules read (no data: the question's surface only)."""

from __future__ import annotations





MAX_HOPS = 3  # substitutions; MuSiQue's deepest questions have four hops
BM25_WEIGHT = 0.15  # fused score: cosine + BM25_WEIGHT * bm25 / max(bm25)
PRIOR = {"title": 0.06, "anchor-title": 0.04, "name": 0.0, "value": 0.0}
CUE_BONUS = 0.03
TYPE_BONUS = 0.02
JOIN_PENALTY = 0.1  # no other candidate names the bridge: the chain cannot continue through it  # a person is named by two words or more
SHORTLIST = 8  # bridge candidates whose filled next sub-question is retrieved

_REL1 = {"that", "who", "whom", "which", "whose", "where", "when"}
_REL_PREP = {"in", "by", "of", "at", "from", "for", "to", "with", "on", "under", "through", "after", "about", "into",
             "over", "behind", "near", "during"}
_DET = {"the", "a", "an"}
_AUX = {"is", "was", "are", "were", "has", "had", "have", "does", "did", "do", "be", "been", "being"}
_WH = {"who", "what", "which", "when", "where", "why", "how", "whom", "whose", "in", "on", "at", "during", "from"}
_STOP_CAPS = {"The", "A", "An", "In", "On", "At", "Of", "And", "For", "He", "She", "It", "They", "His", "Her", "Its",
              "This", "That", "These", "Those", "After", "Before", "During", "When", "While", "As", "By", "From",
              "With", "Who", "What", "Which", "Where", "Why", "How", "There", "Their", "Following", "Although",
              "Since", "Today", "However", "Also", "According", "Between", "Under", "Until", "Both", "Some", "Many"}
_NAME_GLUE = {"of", "de", "van", "von", "da", "la", "le", "del", "bin", "ibn", "the", "du", "y", "di", "der"}
_NOT_PERSON = {"animation", "records", "company", "university", "pictures", "studios", "studio", "inc", "corporation",
               "group", "club", "party", "river", "county", "city", "state", "states", "kingdom", "republic", "church",
               "school", "college", "entertainment", "productions", "films", "music", "network", "award", "awards",
               "tournament", "league", "championship", "festival", "museum", "island", "islands", "mountains", "war"}
# Relation nouns that may follow an entity ("the Paper Lanterns performer").
_PRENOMINAL = {
    "performer", "singer", "band", "director", "author", "writer", "creator", "composer", "producer", "owner",
    "founder", "publisher", "developer", "manufacturer", "designer", "artist", "actor", "actress", "star",
    "narrator", "host", "presenter", "label", "team", "studio", "company", "network", "member", "members",
    "player", "character", "album", "song", "film", "show", "series", "novel", "book", "game", "record",
}
_PERSON = {
    "who", "whom", "person", "actor", "actress", "performer", "singer", "director", "author", "writer", "creator",
    "composer", "producer", "founder", "president", "spouse", "wife", "husband", "player", "governor",
    "leader", "artist", "father", "mother", "son", "daughter", "brother", "sister", "sibling", "king", "queen",
    "emperor", "man", "woman", "narrator", "presenter", "host", "owner", "coach", "manager",
    "minister", "mayor", "senator", "representative", "prime", "star", "girlfriend", "partner",
    "inventor", "developer", "designer", "winner", "champion", "monarch", "ruler", "physicist",
    "scientist", "musician", "band", "group", "cast", "character",
}
_PLACE = {
    "where", "city", "country", "state", "county", "region", "place", "location", "town", "capital", "birthplace",
    "continent", "island", "area", "province", "district", "village", "nation", "municipality", "territory",
}
_ORG = {
    "company", "organization", "organisation", "team", "label", "school", "university", "college", "band", "group",
    "party", "network", "studio", "league", "club", "body", "river", "mountain", "sea", "lake", "ocean", "water",
    "entity", "institution", "agency", "government", "army", "military", "branch", "empire", "dynasty",
    "album", "song", "film", "movie", "show", "series", "book", "novel", "work", "game", "character", "language",
    "religion", "denomination", "currency", "sport", "station", "channel", "newspaper", "magazine", "publisher",
    "manufacturer", "developer", "brand", "airline", "platform", "console", "system", "ship", "vehicle", "division",
    "conference", "federation", "colony", "kingdom", "republic", "union", "alliance", "church", "order", "tribe",
    "people", "ethnic", "family", "house", "building", "stadium", "arena", "airport", "park", "bridge", "street",
    "record", "records", "headquarters", "owner", "parent", "subsidiary", "successor", "predecessor", "member",
    "one", "performer", "creator", "founder",
}
# Heads that name an attribute of the entity, the question's last hop itself, never a bridge.
_ATTRIBUTE = {
    "role", "voice", "source", "name", "title", "percentage", "number", "date", "year", "type", "kind", "part", "size",
    "population", "enrollment", "length", "meaning", "advantages", "advantage", "average", "salary", "rank", "position",
    "term", "terms", "original", "span", "amount", "age", "height", "area", "time", "first", "last", "majority",
    "price", "cost", "value", "total", "rate", "share", "color", "colour", "motto", "nickname", "abbreviation",
    "symbol", "official", "reason", "cause", "result", "outcome", "goal", "aim", "idea", "theme", "subject",
    "topic", "plot", "style", "genre", "version", "form", "status", "level", "degree", "score", "end",
    "beginning", "start", "history", "origin", "way", "method", "process", "effect", "impact", "response", "reaction",
    "highest", "lowest", "largest", "smallest", "biggest", "most", "least", "elevation", "distance", "depth", "width",
    "ranking", "rule", "border", "center", "centre", "power", "letter", "chapter", "corner", "career", "third", "second", "fourth", "fifth", "ranked", "percent", "era", "period", "life", "death",
}
# Kin and counterpart nouns: people named through another person ("the child of X", "X's opponent").
_PERSON |= {"child", "children", "parent", "parents", "grandfather", "grandmother", "grandson", "granddaughter",
            "uncle", "aunt", "nephew", "niece", "cousin", "opponent", "rival", "executive", "member"}
_PERSON_NOUNS = _PERSON - {"who", "whom"}
_ENTITY_NOUNS = _PERSON_NOUNS | _PLACE | _ORG
_WORK_TYPES = {"film", "song", "album", "book", "novel", "play", "work", "series", "show", "band", "company", "single"}
_TIME = {"when", "year", "date", "day", "month", "century", "decade"}
_NUM = {"many", "much", "number", "percentage", "population", "long", "old"}
_FUNCTION = {"and", "or", "of", "in", "on", "at", "by", "for", "to", "with", "from", "as", "is", "was", "are", "were",
             "has", "had", "who", "which", "that", "the", "a", "an", "after", "before", "since", "until", "he",
             "she", "it", "they", "his", "her", "its", "their"}
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]
