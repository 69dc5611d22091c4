// The wizard as a person drives it: each row is a script of answers and the
// shell's results, the policy it must make, the last thing it must ask the
// shell to do, and text the transcript must show (a re-ask's reason, a
// prompt's default).
#include "attune/core/policy/policy_wizard.hpp"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace attune::core {
namespace {

namespace json = boost::json;

// Script entries: an answer line, or one of the shell's results in <>.
//   <list>            web (Deployment, 3 replicas) and db (StatefulSet, 1)
//   <list-empty>      no workloads; <list-missing> no such namespace; <list-error> a refused list
//   <valid>, <invalid>    validated("") / validated("spec... refused")
//   <created>, <create-failed>, <written>, <write-failed>, <eof>
struct Case {
    std::string label;
    std::vector<std::string> script;
    WizardAction last_action;
    std::string spec;                // the policy's spec, JSON; "" = not checked
    std::vector<std::string> shows;  // substrings of the transcript, in order
    int exit_code = 0;
};

const std::vector<std::string> kToMode = {"team", "<list>", "1", ""};
const std::string kDefaultResources = R"("cpu":{"percentile":95},"memory":{"percentile":99})";

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

std::vector<Case> cases() {
    return {
        {"defaults all the way: a Recommend policy on the first workload, from Prometheus",
         kToMode + std::vector<std::string>{"", "", "http://prom.monitoring:9090", "", "", "", "", "", "", "<valid>"},
         WizardAction::Ask,
         R"({"targetRef":{"kind":"Deployment","name":"web"},
             "metricsSource":{"prometheus":{"address":"http://prom.monitoring:9090"}},)" +
             kDefaultResources + R"(,"updateStrategy":{"type":"Recommend"}})",
         {"Namespace [default]: ", "1) Deployment web (3 replicas)", "2) StatefulSet db (1 replica)",
          "Policy name [web-attune]: ", "Mode (Observe, Recommend, OneShot, Auto) [Recommend]: ",
          "Create it in namespace team (c)"}},
        {"Auto asks the schedule and the cooldown, and writes them",
         {"team", "<list>", "db", "db-rightsizing", "auto", "vpa", "", "p90", "100m", "2", "", "64Mi", "1Gi",
          "22:00-06:00,12:00-13:00", "Mon-Fri,sun", "Europe/Berlin", "30m", "<valid>"},
         WizardAction::Ask,
         R"({"targetRef":{"kind":"StatefulSet","name":"db"},"metricsSource":{"vpa":{"name":"db"}},
             "cpu":{"percentile":90,"minAllowed":"100m","maxAllowed":"2"},
             "memory":{"percentile":99,"minAllowed":"64Mi","maxAllowed":"1Gi"},
             "updateStrategy":{"type":"Auto","schedule":{"windows":[{"start":"22:00","end":"06:00"},
               {"start":"12:00","end":"13:00"}],
               "daysOfWeek":["Monday","Tuesday","Wednesday","Thursday","Friday","Sunday"],
               "timezone":"Europe/Berlin"},"cooldown":"30m"}})",
         {"VerticalPodAutoscaler name [db]: ", "Resize only within windows", "Time zone of the windows [UTC]: "}},
        {"a label selector asks the kind and names the policy after its value",
         {"team", "<list>", "app=shop,tier=front", "sts", "", "Observe", "defaults", "", "", "", "", "", "", "<valid>"},
         WizardAction::Ask,
         R"({"targetRef":{"kind":"StatefulSet","selector":{"matchLabels":{"app":"shop","tier":"front"}}},)" +
             kDefaultResources + R"(,"updateStrategy":{"type":"Observe"}})",
         {"Kind of the workloads the selector picks [Deployment]: ", "Policy name [shop-attune]: "}},
        {"KIND/NAME targets a workload that does not exist yet",
         {"team", "<list-empty>", "deploy/api", "", "", "manual", "app", "250m", "", "", "", "", "", "", "", "<valid>"},
         WizardAction::Ask,
         R"({"targetRef":{"kind":"Deployment","name":"api"},
             "metricsSource":{"manual":{"containers":[{"name":"app","resources":{"requests":{"cpu":"250m"}}}]}},)" +
             kDefaultResources + R"(,"updateStrategy":{"type":"Recommend"}})",
         {"No Deployment or StatefulSet in team",
          "Target: a number, KIND/NAME, or a label selector "
          "key=value[,key=value]: "}},
        {"bad answers are asked again with the reason, and nothing is lost",
         {"Team",
          "team",
          "<list>",
          "7",
          "web",
          "bad_name",
          "",
          "canary",
          "sometimes",
          "Auto",
          "influx",
          "prometheus",
          "",
          "ftp://prom",
          "http://169.254.169.254",
          "http://prom:9090",
          "97",
          "95",
          "0",
          "-1m",
          "abc",
          "",
          "4",
          "",
          "2Gi",
          "1Gi",
          "100Ti",
          "",
          "25:00-01:00",
          "",
          "30s",
          "-",
          "<valid>"},
         WizardAction::Ask,
         R"({"targetRef":{"kind":"Deployment","name":"web"},
             "metricsSource":{"prometheus":{"address":"http://prom:9090"}},
             "cpu":{"percentile":95,"maxAllowed":"4"},"memory":{"percentile":99,"minAllowed":"2Gi"},
             "updateStrategy":{"type":"Auto"}})",
         {"\"Team\" is not a namespace name", "choose a number from 1 to 2", "\"bad_name\" is not an object name",
          "Canary needs its steps", "\"sometimes\" is not a mode", "\"influx\" is not a source",
          "an answer is required", "the scheme must be http or https", "cloud metadata endpoint",
          "\"97\" is not a percentile", "\"0\" must be above 0", "\"-1m\" must be above 0", "\"abc\" is not a quantity",
          "maxAllowed 1Gi is below minAllowed 2Gi", "100Ti is above the most a policy allows",
          "\"25:00-01:00\" is not a window", "the cooldown must be 0 or at least 1m"}},
        {"a namespace that does not exist is asked again",
         {"nope", "<list-missing>", "team", "<list>"},
         WizardAction::Ask,
         "",
         {"namespace \"nope\" does not exist", "Namespace [default]: ", "1) Deployment web"}},
        {"a list the CLI may not read still lets the target be typed",
         {"team", "<list-error>", "", "1", "sts/db"},
         WizardAction::Ask,
         "",
         {"Cannot list the workloads of team (forbidden); type the target.", "an answer is required",
          "there is no list to choose from", "Policy name [db-attune]: "}},
        {"selector syntax the wizard does not write is refused",
         {"team", "<list>", "app!=web", "app in (a,b)=x", "app=web,app=shop", "app=web"},
         WizardAction::Ask,
         "",
         {"\"app!=web\" is not key=value", "\"app in (a\" is not key=value", "the label key \"app\" is given twice",
          "Kind of the workloads"}},
        {"manual needs a cpu or a memory request",
         kToMode + std::vector<std::string>{"", "manual", "App", "app", "", ""},
         WizardAction::Ask,
         "",
         {"\"App\" is not a container name",
          "CPU request for app, e.g. 250m (Enter: the live value): ", "give a cpu or a memory request"}},
        {"an unknown time zone is refused by the zone database",
         kToMode + std::vector<std::string>{"OneShot", "defaults", "", "", "", "", "", "", "09:00-17:00", "",
                                            "Mars/Phobos", "Europe/Paris"},
         WizardAction::Ask,
         "",
         {"\"Mars/Phobos\" is not in the zone database", "Cooldown between two resizes"}},
        {"create: the shell creates the policy, and says so",
         kToMode + std::vector<std::string>{"", "defaults", "", "", "", "", "", "", "<valid>", "x", "c", "<created>"},
         WizardAction::Finish,
         "",
         {"answer c, w, e or q", "attunepolicy.attune.io/web-attune created"}},
        {"a failed create is reported and the choice asked again",
         kToMode +
             std::vector<std::string>{"", "defaults", "", "", "", "", "", "", "<valid>", "c", "<create-failed>", "q"},
         WizardAction::Finish,
         "",
         {"error: already exists", "Create it in namespace team (c)", "Nothing was created."}},
        {"write: the file is asked, a refused write asks it again",
         kToMode + std::vector<std::string>{"", "defaults", "", "", "", "", "", "", "<valid>", "w", "",
                                            "<write-failed>", "p.yaml", "<written>"},
         WizardAction::Finish,
         "",
         {"File to write [web-attune.yaml]: ", "web-attune.yaml exists", "Wrote p.yaml"}},
        {"a refused policy offers only to change the answers or quit; a change keeps every answer",
         kToMode + std::vector<std::string>{"",  "defaults", "", "",       "", "",           "", "", "<invalid>",
                                            "c", "e",        "", "<list>", "", "api-attune", "", "", "",
                                            "",  "",         "", "",       ""},
         WizardAction::Validate,
         R"({"targetRef":{"kind":"Deployment","name":"web"},)" + kDefaultResources +
             R"(,"updateStrategy":{"type":"Recommend"}})",
         {"The policy would be refused: spec.x is refused",
          "Change the answers (e) or quit (q): ", "the policy would be refused: answer e or q",
          "Namespace [team]: ", "Target: a number", "Metrics source (prometheus, vpa, manual, defaults) [defaults]: "}},
        {"Ctrl-D aborts at any question and nothing is created",
         kToMode + std::vector<std::string>{"<eof>"},
         WizardAction::Finish,
         "",
         {"Aborted: nothing was created."},
         1},
    };
}

void run_script(const Case& c) {
    SCOPED_TRACE(c.label);
    WizardOptions options;
    options.check_zone = [](std::string_view z) -> std::string {
        return z == "Mars/Phobos" ? "\"Mars/Phobos\" is not in the zone database" : "";
    };
    PolicyWizard w(options);
    std::string transcript;
    auto record = [&](WizardOutput o) {
        transcript += o.text + o.prompt + "\n";
        return o;
    };
    auto out = record(w.start());
    for (const auto& in : c.script) {
        if (in == "<list>")
            out = record(w.workloads_listed({false, "", {{"Deployment", "web", 3}, {"StatefulSet", "db", 1}}}));
        else if (in == "<list-empty>") out = record(w.workloads_listed({}));
        else if (in == "<list-missing>") out = record(w.workloads_listed({true, "", {}}));
        else if (in == "<list-error>") out = record(w.workloads_listed({false, "forbidden", {}}));
        else if (in == "<valid>") out = record(w.validated(""));
        else if (in == "<invalid>") out = record(w.validated("spec.x is refused"));
        else if (in == "<created>") out = record(w.created(""));
        else if (in == "<create-failed>") out = record(w.created("already exists"));
        else if (in == "<written>") out = record(w.written(""));
        else if (in == "<write-failed>") out = record(w.written("web-attune.yaml exists"));
        else if (in == "<eof>") out = record(w.end_of_input());
        else out = record(w.answer(in));
    }
    EXPECT_EQ(static_cast<int>(out.action), static_cast<int>(c.last_action)) << transcript;
    if (out.action == WizardAction::Finish) {
        EXPECT_EQ(out.exit_code, c.exit_code);
    }
    std::size_t from = 0;
    for (const auto& s : c.shows) {
        const auto at = transcript.find(s, from);
        ASSERT_NE(at, std::string::npos) << "\"" << s << "\" not shown (after offset " << from << ") in:\n"
                                         << transcript;
        from = at + s.size();
    }
    if (!c.spec.empty()) {
        const auto policy = w.policy();
        EXPECT_EQ(policy.at("spec"), json::parse(c.spec)) << json::serialize(policy);
        EXPECT_EQ(policy.at("metadata").at("namespace"), json::value("team"));
    }
}

TEST(PolicyWizard, EachScriptMakesItsPolicyAndAsksBadAnswersAgainWithTheReason) {
    for (const auto& c : cases()) run_script(c);
}

TEST(PolicyWizard, ThePreviewIsThePolicyTheShellCreates) {
    PolicyWizard w(WizardOptions{"team", true, {}});
    w.start();
    w.answer("");
    w.workloads_listed({false, "", {{"Deployment", "web", 1}}});
    for (auto a : {"", "", "", "defaults", "", "", "", "", "", ""}) w.answer(a);
    const auto shown = w.validated("");
    ASSERT_TRUE(shown.show_policy);
    const auto create = w.answer("c");
    ASSERT_EQ(static_cast<int>(create.action), static_cast<int>(WizardAction::Create));
    EXPECT_EQ(create.ns, "team");
    EXPECT_EQ(create.policy, shown.policy);
    EXPECT_EQ(create.policy.at("metadata").at("name"), json::value("web-attune"));
    EXPECT_EQ(create.policy.at("kind"), json::value("AttunePolicy"));
}

TEST(PolicyWizard, AModeThatResizesNothingWritesNoScheduleKeptFromAnEarlierPass) {
    PolicyWizard w(WizardOptions{"team", true, {}});
    w.start();
    w.answer("");
    w.workloads_listed({false, "", {{"Deployment", "web", 1}}});
    for (auto a : {"", "", "Auto", "defaults", "", "", "", "", "", "", "01:00-02:00", "", "", "5m"}) w.answer(a);
    w.validated("");
    w.answer("e");
    w.answer("");
    w.workloads_listed({false, "", {{"Deployment", "web", 1}}});
    WizardOutput out;
    for (auto a : {"", "", "Recommend", "", "", "", "", "", "", ""}) out = w.answer(a);
    ASSERT_EQ(static_cast<int>(out.action), static_cast<int>(WizardAction::Validate));
    EXPECT_EQ(out.policy.at("spec").at("updateStrategy"), json::parse(R"({"type":"Recommend"})"));
}

}  // namespace
}  // namespace attune::core
