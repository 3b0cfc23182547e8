#include <gtest/gtest.h>

#include <stdexcept>

#include "core/errors.h"
#include "core/options.h"
#include "test_support.h"

using namespace routelab;

TEST(SpecGrammar, BaseWithOptionsAndModifiers) {
  const Spec spec = parseSpec("kary-ntree:k=4,n=3+fail-links=2,seed=7+fail-switches=1");
  EXPECT_EQ(spec.base.name, "kary-ntree");
  ASSERT_EQ(spec.base.options.size(), 2u);
  EXPECT_EQ(spec.base.options[0], (std::pair<std::string, std::string>{"k", "4"}));
  ASSERT_EQ(spec.modifiers.size(), 2u);
  EXPECT_EQ(spec.modifiers[0].name, "fail-links");
  EXPECT_EQ(spec.modifiers[0].positional, "2");
  EXPECT_EQ(spec.modifiers[0].options[0], (std::pair<std::string, std::string>{"seed", "7"}));
  EXPECT_EQ(spec.modifiers[1].name, "fail-switches");
  EXPECT_EQ(spec.modifiers[1].positional, "1");
  EXPECT_EQ(spec.str(), "kary-ntree:k=4,n=3+fail-links=2,seed=7+fail-switches=1");
}

// Blanks (spaces and tabs) around names, keys, values and separators are not part of them
// (README.md, "Spec grammar"): a spec typed with spaces reads as the one without.
TEST(SpecGrammar, BlanksAroundNamesKeysAndValuesAreNotPartOfThem) {
  const Spec spec = parseSpec(" \tkary-ntree : k = 4 ,\t n=3\t + fail-links = 2 , \tseed = 7 ");
  EXPECT_EQ(spec.base.name, "kary-ntree");
  ASSERT_EQ(spec.base.options.size(), 2u);
  EXPECT_EQ(spec.base.options[0], (std::pair<std::string, std::string>{"k", "4"}));
  EXPECT_EQ(spec.base.options[1], (std::pair<std::string, std::string>{"n", "3"}));
  ASSERT_EQ(spec.modifiers.size(), 1u);
  EXPECT_EQ(spec.modifiers[0].name, "fail-links");
  EXPECT_EQ(spec.modifiers[0].positional, "2");
  ASSERT_EQ(spec.modifiers[0].options.size(), 1u);
  EXPECT_EQ(spec.modifiers[0].options[0], (std::pair<std::string, std::string>{"seed", "7"}));
  EXPECT_EQ(spec.str(), "kary-ntree:k=4,n=3+fail-links=2,seed=7");
}

TEST(SpecGrammar, PathComponentsKeepTheirBody) {
  const Spec spec = parseSpec("file:/tmp/a,b=c.net+fail-links=1", {"file"});
  EXPECT_EQ(spec.base.name, "file");
  EXPECT_EQ(spec.base.positional, "/tmp/a,b=c.net");
  ASSERT_EQ(spec.modifiers.size(), 1u);
  EXPECT_THROW(parseSpec("file:", {"file"}), SpecError);
  EXPECT_THROW(parseSpec("file", {"file"}), SpecError);
  // Found by fuzz_spec (fuzz/regressions/spec/): a blank path was accepted as "".
  EXPECT_THROW(parseSpec("file:\t+fail-links=1", {"file"}), SpecError);
}

// Found by fuzz_spec: a modifier with options but no value was re-serialised as
// "+d=k=v", which parses back as the value "k=v". Spec::str() now round-trips.
TEST(SpecGrammar, StrRoundTrips) {
  for (const std::string text : {"kary-ntree:k=4,n=3+fail-links=2,seed=3", "random:switches=8+d,ka:=true+e",
                                 "file:/x.net+remove-links=a[1].b[2]+fail-switches,seed=1"}) {
    const Spec spec = parseSpec(text, {"file"});
    EXPECT_EQ(spec.str(), text);  // canonical text is written back as it was
    EXPECT_EQ(parseSpec(spec.str(), {"file"}).str(), spec.str()) << text;
  }
  EXPECT_EQ(parseSpec("random:switches=8+d,ka:").str(), "random:switches=8+d,ka:=true");
}

// The base ends at the first '+' whether or not a ':' follows: a base without options keeps
// its modifiers even when a modifier's value holds a colon (+remove-links names a cable by
// both ends as "a[1]:b[2]", docs/TOPOLOGIES.md).
TEST(SpecGrammar, ABaseWithoutOptionsEndsAtTheFirstPlus) {
  const std::string text = "ring+remove-links=a[1]:b[2].c[3]+fail-links=1,seed=2";
  const Spec spec = parseSpec(text);
  EXPECT_EQ(spec.base.name, "ring");
  EXPECT_TRUE(spec.base.options.empty());
  ASSERT_EQ(spec.modifiers.size(), 2u);
  EXPECT_EQ(spec.modifiers[0].name, "remove-links");
  EXPECT_EQ(spec.modifiers[0].positional, "a[1]:b[2].c[3]");
  EXPECT_EQ(spec.modifiers[1].name, "fail-links");
  EXPECT_EQ(spec.str(), text);
}

TEST(SpecGrammar, Malformed) {
  EXPECT_THROW(parseSpec(""), SpecError);
  EXPECT_THROW(parseSpec("kary-ntree:k=4,,n=3"), SpecError);
  EXPECT_THROW(parseSpec("kary-ntree:=4"), SpecError);
  EXPECT_THROW(parseSpec("kary-ntree:k=4+"), SpecError);
  EXPECT_THROW(parseSpec(":k=4"), SpecError);
}

namespace {
const OptionSchema kSchema = {
    {"k", OptionType::Integer, "", "arity", true},
    {"ratio", OptionType::Real, "0.5", "a ratio"},
    {"levels", OptionType::IntegerList, "1.2", "per level"},
    {"verbose", OptionType::Flag, "", "flag"},
    {"name", OptionType::String, "x", "a name"},
};
}

TEST(Options, ASchemaWithARequiredOptionThatHasADefaultIsRefused) {
  // A default fills the option in before the spec is read, so "required" could never fire.
  const OptionSchema contradictory = {{"k", OptionType::Integer, "4", "arity", true}};
  try {
    Options("gen", contradictory);
    FAIL() << "accepted";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "gen: option 'k' is declared required and with a default ('4')");
  }
  EXPECT_THROW(Options("gen", contradictory, parseComponent("gen:k=3")), std::logic_error);
  EXPECT_NO_THROW(Options("gen", kSchema));
}

TEST(Options, TypedAccessAndDefaults) {
  const Options o("thing", kSchema, parseComponent("thing:k=16,levels=3.4.5,verbose"));
  EXPECT_EQ(o.integer("k"), 16);
  EXPECT_DOUBLE_EQ(o.real("ratio"), 0.5);
  EXPECT_EQ(o.integerList("levels"), (std::vector<std::int64_t>{3, 4, 5}));
  EXPECT_TRUE(o.flag("verbose"));
  EXPECT_EQ(o.string("name"), "x");
  EXPECT_EQ(o.effective(), "thing:k=16,ratio=0.5,levels=3.4.5,verbose=true,name=x");
}

// given(): named by the spec or set(), never by a default alone, even one equal to the value.
TEST(Options, GivenIsTrueOnlyForKeysTheSpecNamesOrSetSets) {
  Options o("thing", kSchema, parseComponent("thing:k=16,ratio=0.5"));
  EXPECT_TRUE(o.given("k"));
  EXPECT_TRUE(o.given("ratio"));  // the default's value, but named
  EXPECT_FALSE(o.given("name"));
  EXPECT_TRUE(o.has("name"));  // a default: a value, not given
  o.set("name", "y");
  EXPECT_TRUE(o.given("name"));
  EXPECT_FALSE(Options("thing", kSchema).given("ratio"));
  EXPECT_THROW((void)o.given("nosuch"), SpecError);
}

TEST(Options, EffectiveModifierReparsesAfterAPlus) {
  // A '+' modifier is written `name[=positional][,k=v...]`; effective() writes base
  // components (`name:k=v`), which after a '+' would not parse back.
  const OptionSchema schema = {{"seed", OptionType::Integer, "1", "seed"}, {"note", OptionType::String, "", "note"}};
  const Spec written = parseSpec("base:k=1+fail-links=3+fail-links,seed=5,note=x+remove=a[1].b[2]");
  ASSERT_EQ(written.modifiers.size(), 3u);
  std::string echoed = "base:k=1";
  for (const ComponentSpec& modifier : written.modifiers) {
    echoed += "+" + Options(modifier.name, schema, modifier).effectiveModifier();
  }
  EXPECT_EQ(echoed, "base:k=1+fail-links=3,seed=1+fail-links,seed=5,note=x+remove=a[1].b[2],seed=1");
  const Spec reparsed = parseSpec(echoed);
  ASSERT_EQ(reparsed.modifiers.size(), 3u);
  EXPECT_EQ(reparsed.modifiers[0].positional, "3");
  EXPECT_EQ(reparsed.modifiers[1].positional, "");
  EXPECT_EQ(reparsed.modifiers[1].options,
            (std::vector<std::pair<std::string, std::string>>{{"seed", "5"}, {"note", "x"}}));
  EXPECT_EQ(reparsed.modifiers[2].positional, "a[1].b[2]");
  EXPECT_EQ(reparsed.str(), echoed);  // Spec::str() writes the same grammar
  EXPECT_EQ(Options("fail-links", schema, written.modifiers[0]).effective(), "fail-links:3,seed=1");
}

TEST(Options, ErrorsNameComponentAndKey) {
  auto message = [](const std::string& text) {
    return test::thrownMessage<SpecError>([&] { Options("thing", kSchema, parseComponent(text)); }, "no error");
  };
  EXPECT_NE(message("thing:k=1,q=2").find("unknown option 'q'"), std::string::npos);
  EXPECT_NE(message("thing:k=1,q=2").find("known: k, ratio"), std::string::npos);
  EXPECT_NE(message("thing:ratio=1").find("missing required option 'k'"), std::string::npos);
  EXPECT_NE(message("thing:k=abc").find("option 'k': 'abc' is not an integer"), std::string::npos);
  EXPECT_NE(message("thing:k=1,k=2").find("given twice"), std::string::npos);
  EXPECT_NE(message("thing:k=1,ratio=x").find("not a number"), std::string::npos);
  EXPECT_NE(message("thing:k=1,levels=1..2").find("not an integer"), std::string::npos);
  EXPECT_NE(message("thing:k=1,verbose=maybe").find("true or false"), std::string::npos);
  EXPECT_NE(message("thing:k=99999999999999999999").find("not an integer"), std::string::npos);
  const Options o("thing", kSchema, parseComponent("thing:k=5"));
  EXPECT_THROW(o.integerIn("k", 6, 10), SpecError);
  EXPECT_EQ(o.integerIn("k", 1, 10), 5);
}

TEST(Options, RangesAndChoicesAreCheckedAtTheLimitAndOnePast) {
  OptionSchema schema = {
      {"flits", OptionType::Integer, "8", "flits per packet", false, "1", "4096"},
      {"load", OptionType::Real, "0.1", "offered load", false, "0", "1", true},
      {"mode", OptionType::String, "a", "mode", false, "", "", false, {"a", "b"}},
      {"share", OptionType::Real, "0.5", "a share", false, "0", "1"},
  };
  Options o("simulate", schema);
  o.set("flits", "1");
  o.set("flits", "4096");
  EXPECT_EQ(o.integer("flits"), 4096);
  auto message = [&](const std::string& key, const std::string& value) {
    return test::thrownMessage<SpecError>([&] { o.set(key, value); }, "no error");
  };
  EXPECT_EQ(message("flits", "4097"), "simulate: flits must lie in [1, 4096] (got 4097)");
  EXPECT_EQ(message("flits", "0"), "simulate: flits must lie in [1, 4096] (got 0)");
  EXPECT_EQ(message("load", "1"), "no error");
  EXPECT_EQ(message("load", "0.000001"), "no error");
  EXPECT_EQ(message("load", "0"), "simulate: load must lie in (0, 1] (got 0)");
  EXPECT_EQ(message("load", "1.0001"), "simulate: load must lie in (0, 1] (got 1.0001)");
  // A real range closed at its minimum takes the minimum itself.
  EXPECT_EQ(message("share", "0"), "no error");
  EXPECT_EQ(message("share", "1"), "no error");
  EXPECT_EQ(message("share", "-0.0001"), "simulate: share must lie in [0, 1] (got -0.0001)");
  EXPECT_EQ(message("share", "1.0001"), "simulate: share must lie in [0, 1] (got 1.0001)");
  EXPECT_EQ(message("mode", "b"), "no error");
  EXPECT_EQ(message("mode", "c"), "simulate: mode must be one of a, b (got 'c')");
  // A refused value leaves the previous one.
  EXPECT_EQ(o.integer("flits"), 4096);
  EXPECT_EQ(schema[0].rangeText(), "[1, 4096]");
  EXPECT_EQ(schema[1].rangeText(), "(0, 1]");
  EXPECT_EQ(schema[2].rangeText(), "");
  EXPECT_EQ(schema[3].rangeText(), "[0, 1]");
}
