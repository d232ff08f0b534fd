package w2

// The three anime opening narrations of seed 002 ("[AWS] DynamoDBでチャンク分割時の
// データ保持構造を考えてみた"), quoted verbatim as test data, including the
// stray closing quotation marks the article leaves after two of them.

// Narration is one source document.
type Narration struct {
	Key   string // partition key in layouts B and C (seed: conan-opening, ...)
	Short string // partition key in the small-to-big layout (seed: CONAN, ...)
	Title string
	Text  string
}

// Narrations are the documents loaded by every layout.
var Narrations = []Narration{
	{Key: "conan-opening", Short: "CONAN", Title: "名探偵コナン",
		Text: `俺は高校生探偵・工藤新一。幼馴染で同級生の毛利蘭と遊園地に遊びに行って、黒ずくめの男の怪しげな取引現場を目撃した。取引を見るのに夢中になっていた俺は、背後から近づいてくるもう一人の仲間に気づかなかった。俺はその男に毒薬を飲まされ、目が覚めたら…体が縮んでしまっていた!!工藤新一が生きていると奴らにバレたら、また命が狙われ、周りの人間にも危害が及ぶ。阿笠博士の助言で正体を隠すことにした俺は、蘭に名前を聞かれてとっさに、江戸川コナンと名乗り、奴らの情報をつかむために、父親が探偵をやっている蘭の家に転がり込んだ。謎に包まれた黒ずくめの組織…。わかっているのは、そのコードネームがお酒にちなんだ名前であることくらいだ…。そんな奴らの正体を暴くため、小さな探偵、江戸川コナンの活躍が始まった!!たったひとつの真実見抜く見た目は子供、頭脳は大人その名は、名探偵コナン!!`},
	{Key: "onepiece-opening", Short: "ONEPIECE", Title: "ONE PIECE",
		Text: `富、名声、力。かつてこの世の全てを手に入れた男、海賊王ゴールド・ロジャー。彼の死に際に放った一言は、人々を海へ駆り立てた。「おれの財宝か？欲しけりゃくれてやる。探せ！この世の全てをそこに置いてきた」。世はまさに、大海賊時代！"`},
	{Key: "precure-detective-intro", Short: "PRECURE", Title: "名探偵プリキュア！",
		Text: `【明智あんな】は、マコトミライタウンに暮らす14歳の中学２年生！誕生日に現れた妖精【ポチタン】とお部屋にあったペンダントに導かれて2027年から1999年のまことみらい市にタイムスリップ…！そこで出会ったのは、名探偵に憧れている14歳の女の子【小林みくる】！そんな中、事件発生！？大切なものを盗まれて困っている人がいるみたい…！事件は【怪盗団ファントム】のしわざ…！？困っている人を見逃せない…！そんな思いから、あんなとみくるは【名探偵プリキュア】に変身‼名探偵プリキュアがみんなの笑顔を推理で守る！「そのナゾ！キュアット解決！」そして、あんなは元の時代に戻ることができるのか…！？"`},
}
