"""H on a table of real questions from HotpotQA, 2Wiki, MuSiQue and SQuAD (verbatim from the dev files)."""

import pytest

from chainret.research.verification.hypothesis import analyse, hypothesis, relation_question

# (dataset, question, gold answer, expected slot hypothesis, expected oracle hypothesis, form)
TABLE = [
    ("paper", "Who directed Inception?", "Christopher Nolan",
     "a person directed Inception.", "Christopher Nolan directed Inception.", "wh-subject"),
    ("hotpotqa", "Who is the mother of the princess who opened Middleton Grange Shopping Centre in 1970?", "Princess Elizabeth",
     "a person is the mother of the princess who opened Middleton Grange Shopping Centre in 1970.",
     "Princess Elizabeth is the mother of the princess who opened Middleton Grange Shopping Centre in 1970.", "wh-subject"),
    ("hotpotqa", "Gorgoroth is a band based in which Norwegian county?", "Hordaland",
     "Gorgoroth is a band based in a Norwegian county.", "Gorgoroth is a band based in Hordaland.", "wh-in-situ"),
    ("hotpotqa", "Ralph Hefferline was a psychology professor at a university that is located in what city?", "New York City",
     "Ralph Hefferline was a psychology professor at a university that is located in a city.",
     "Ralph Hefferline was a psychology professor at a university that is located in New York City.", "wh-in-situ"),
    ("hotpotqa", "Which genre of music do both Dusty Drake and Joe Diffie sing?", "country",
     "Both Dusty Drake and Joe Diffie sing a genre of music.", "Both Dusty Drake and Joe Diffie sing country.", "wh-object"),
    ("hotpotqa", "In what country did Irvine Gerald Sellar develop the second-tallest free-standing structure?", "United Kingdom",
     "Irvine Gerald Sellar developed the second-tallest free-standing structure in a country.",
     "Irvine Gerald Sellar developed the second-tallest free-standing structure in United Kingdom.", "wh-adverbial"),
    ("hotpotqa", "How many Major League Baseball teams usually attend the meeting where the John H. Johnson President's Award is awarded?", "30",
     "some number of Major League Baseball teams usually attend the meeting where the John H. Johnson President's Award is awarded.",
     "30 Major League Baseball teams usually attend the meeting where the John H. Johnson President's Award is awarded.", "wh-subject"),
    ("hotpotqa", "Are Wolfgang Becker and Jacques Audiard both German film directors?", "no",
     "Wolfgang Becker and Jacques Audiard are both German film directors.",
     "Wolfgang Becker and Jacques Audiard are not both German film directors.", "yes-no"),
    ("hotpotqa", "Were Scott Derrickson and Ed Wood of the same nationality?", "yes",
     "Scott Derrickson and Ed Wood were of the same nationality.",
     "Scott Derrickson and Ed Wood were of the same nationality.", "yes-no"),
    ("hotpotqa", "Which singer is younger, Terri Nunn or Sonya Scarlet?", "Sonya Scarlet",
     "Of Terri Nunn and Sonya Scarlet, a singer is younger.", "Sonya Scarlet is younger, not Terri Nunn.", "comparison"),
    ("hotpotqa", "What public radio network in New York has allowed Eric Plakun to dis his psychiatric work?", "WAMC",
     "a public radio network in New York has allowed Eric Plakun to dis his psychiatric work.",
     "WAMC, a public radio network in New York, has allowed Eric Plakun to dis his psychiatric work.", "wh-subject"),
    ("2wiki", "Where was the director of film A Day Of Roses In August born?", "Halberstadt",
     "The director of film A Day Of Roses In August was born in some place.",
     "The director of film A Day Of Roses In August was born in Halberstadt.", "wh-adverbial"),
    ("2wiki", "Which country Nido Taniam's father is from?", "India",
     "Nido Taniam's father is from a country.", "Nido Taniam's father is from India.", "wh-object"),
    ("2wiki", "Who is the spouse of the director of film Terminal Bliss?", "Amanda Righetti",
     "a person is the spouse of the director of film Terminal Bliss.",
     "Amanda Righetti is the spouse of the director of film Terminal Bliss.", "wh-subject"),
    ("2wiki", "When did the composer of film The Sparrow'S Fluttering die?", "1 March 1991",
     "The composer of film The Sparrow'S Fluttering died at some time.",
     "The composer of film The Sparrow'S Fluttering died on 1 March 1991.", "wh-adverbial"),
    ("2wiki", "Who was born first, William L. Holland or Dale Vince?", "William L. Holland",
     "Of William L. Holland and Dale Vince, a person was born first.",
     "William L. Holland was born first, not Dale Vince.", "comparison"),
    ("2wiki", "Are both Popolopen and El Diente Peak located in the same country?", "yes",
     "Both Popolopen and El Diente Peak are located in the same country.",
     "Both Popolopen and El Diente Peak are located in the same country.", "yes-no"),
    ("2wiki", "Do both directors of films Bicycle Dreams and Jungle Stampede share the same nationality?", "no",
     "Both directors of films Bicycle Dreams and Jungle Stampede share the same nationality.",
     "Both directors of films Bicycle Dreams and Jungle Stampede do not share the same nationality.", "yes-no"),
    # MuSiQue rows are synthetic in MuSiQue's style (no evaluated question is quoted: test_verify_decomp_split.py)
    ("musique", "Harlow County >> named after", "Edwin Harlow",
     "Harlow County is named after a person.", "Harlow County is named after Edwin Harlow.", "relation"),
    ("musique", "Edwin Harlow >> father", "Amos Harlow",
     "a person is the father of Edwin Harlow.", "Amos Harlow is the father of Edwin Harlow.", "relation"),
    ("musique", "What company did Compaq merge with in 2002?", "Hewlett Packard",
     "Compaq merged with in 2002 a company.", "Compaq merged with in 2002 Hewlett Packard.", "wh-object"),
    ("musique", "who plays tam in return to tam's lighthouse", "Ivy Marsh",
     "a person plays tam in return to tam's lighthouse.", "Ivy Marsh plays tam in return to tam's lighthouse.", "wh-subject"),
    ("musique", "Where did Mao Zedong declare that he would intervene in the Korean conflict?", "the Politburo",
     "Mao Zedong declared that he would intervene in the Korean conflict in some place.",
     "Mao Zedong declared that he would intervene in the Korean conflict in the Politburo.", "wh-adverbial"),
    ("squad", "Who chartered the British East India Company?", "Queen Elizabeth I",
     "a person chartered the British East India Company.", "Queen Elizabeth I chartered the British East India Company.", "wh-subject"),
    ("squad", "What did European empires rely on to supply them with resources?", "colonies",
     "European empires relied on to supply them with resources something.",
     "European empires relied on to supply them with resources colonies.", "wh-object"),
    ("squad", "How many Panthers players were chosen for the 2015 season's Pro Bowl?", "ten",
     "some number of Panthers players were chosen for the 2015 season's Pro Bowl.",
     "Ten Panthers players were chosen for the 2015 season's Pro Bowl.", "wh-subject"),
]


@pytest.mark.parametrize("dataset,question,answer,slot,oracle,form", TABLE, ids=[f"{r[0]}-{i}" for i, r in enumerate(TABLE)])
def test_hypothesis_table(dataset, question, answer, slot, oracle, form):
    h = analyse(question)
    assert h.text == slot
    assert h.form == form
    assert hypothesis(question, answer) == oracle


@pytest.mark.parametrize("row", TABLE, ids=[f"{r[0]}-{i}" for i, r in enumerate(TABLE)])
def test_never_a_meta_statement(row):
    """The footnote's failure mode: statements about 'the answer' or 'this text' are out of distribution."""
    _, question, answer, *_ = row
    for text in (hypothesis(question), hypothesis(question, answer)):
        low = text.lower()
        assert "the answer" not in low and "this text" not in low and "information about" not in low
        assert not text.endswith("?") and text.endswith(".")


def test_oracle_contains_answer_and_slot_does_not():
    for _, question, answer, *_ in TABLE:
        if answer in {"yes", "no"}:
            continue
        assert answer.lower() in hypothesis(question, answer).lower()
        assert answer.lower() not in hypothesis(question).lower() or answer.lower() in question.lower()


def test_relation_question_natural_and_fallback():
    assert relation_question("Inception", "director") == "Who directed Inception?"
    assert relation_question("Max Mack", "place of birth") == "Where was Max Mack born?"
    # an unseen relation still gives an object-level question
    assert relation_question("X", "tributary") == "What is the tributary of X?"
    assert hypothesis("X >> tributary") == "something is the tributary of X."


def test_empty_question():
    assert hypothesis("   ") == ""
