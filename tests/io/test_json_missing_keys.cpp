// routelab JSON (docs/FORMATS.md "routelab JSON"): a required top-level key that is absent is
// a ParseError at line 1 (the file's start: the key has no line of its own) naming the key;
// a key that is present but wrong is named at its own line.
#include <gtest/gtest.h>

#include "core/errors.h"
#include "io/fabric_files.h"

using namespace routelab;

namespace {

struct Where {
  std::size_t line = 0;
  std::string message;
};

Where errorOf(const std::string& text) {
  try {
    parseFabricText(text, "f.json");
  } catch (const ParseError& e) {
    return {e.line(), e.what()};
  }
  return {0, "no error"};
}

}  // namespace

TEST(JsonMissingKeys, AnAbsentRequiredKeyIsNamedAtLineOne) {
  const std::string nodes = " \"nodes\": [{\"name\": \"a\", \"kind\": \"switch\", \"ports\": 2}],\n";
  const std::string cables = " \"cables\": []\n";
  // Complete: read.
  EXPECT_EQ(errorOf("{\"format\": \"routelab-network\",\n \"version\": 1,\n" + nodes + cables + "}\n").message,
            "no error");
  for (const auto& [text, key] : std::vector<std::pair<std::string, std::string>>{
           {"{\"format\": \"routelab-network\",\n \"version\": 1,\n" + cables + "}\n", "nodes"},
           {"{\"format\": \"routelab-network\",\n \"version\": 1,\n" + nodes.substr(0, nodes.size() - 2) + "\n}\n",
            "cables"},
           {"{\"format\": \"routelab-network\",\n" + nodes + cables + "}\n", "version"}}) {
    const Where where = errorOf(text);
    EXPECT_EQ(where.line, 1u) << key << ": " << where.message;
    EXPECT_NE(where.message.find("\"" + key + "\""), std::string::npos) << where.message;
  }
}

// A document read as routelab JSON (FabricFormat::Json, `json:PATH`) that is valid JSON but
// not an object is refused at line 1, the document's start, with what it must be.
TEST(JsonMissingKeys, ADocumentThatIsNotAnObjectIsRefusedAtLineOne) {
  for (const std::string text : {"[1, 2]", "42", "\"routelab-network\"", "null"}) {
    try {
      parseFabricText(text, "f.json", FabricFormat::Json);
      ADD_FAILURE() << text << " was read";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.line(), 1u) << text;
      EXPECT_NE(std::string(e.what()).find("the JSON document must be an object with \"format\": \"routelab-network\""),
                std::string::npos)
          << e.what();
    }
  }
}
