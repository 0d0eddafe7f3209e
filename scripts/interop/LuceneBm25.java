// Test reference only (never used by the product): Lucene 8.11's BM25 search over WebShop
// documents, set up as Pyserini 0.17 / Anserini 0.14.3 index and search them (the versions
// WebShop pins): DefaultEnglishAnalyzer's chain (StandardTokenizer, EnglishPossessiveFilter,
// LowerCaseFilter, Lucene's English stop set, PorterStemFilter), BM25(k1 = 0.9, b = 0.4),
// one SHOULD clause per distinct query term boosted by its count (BagOfWordsQueryGenerator),
// hits sorted by score then by the `id` field (SimpleSearcher's BREAK_SCORE_TIES_BY_DOCID).
//
// Run with the JDK's source launcher and the two Lucene jars on the class path:
//   java -cp lucene-core-8.11.0.jar:lucene-analyzers-common-8.11.0.jar LuceneBm25.java search 50 < in > out
//   java -cp ... LuceneBm25.java analyze < texts > tokens
// Input lines are escaped (\\ \n \r \t). search: "<n>" then n lines "<id>\t<contents>", then query
// lines; prints the terms of every document, then of every query (one line each, joined by
// spaces), then one line of hits per query, "<id>:<score>" joined by spaces. analyze: one text
// per line; prints its terms joined by spaces.
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.lucene.analysis.*;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.*;
import org.apache.lucene.index.*;
import org.apache.lucene.search.*;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;

public class LuceneBm25 {
  static final class English extends StopwordAnalyzerBase {
    English() { super(EnglishAnalyzer.ENGLISH_STOP_WORDS_SET); }
    @Override protected TokenStreamComponents createComponents(String field) {
      Tokenizer source = new StandardTokenizer();
      TokenStream r = new EnglishPossessiveFilter(source);
      r = new LowerCaseFilter(r);
      r = new StopFilter(r, stopwords);
      r = new PorterStemFilter(r);
      return new TokenStreamComponents(source, r);
    }
  }

  static String unescape(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != '\\' || i + 1 == s.length()) { b.append(c); continue; }
      char n = s.charAt(++i);
      b.append(n == 'n' ? '\n' : n == 'r' ? '\r' : n == 't' ? '\t' : n);
    }
    return b.toString();
  }

  static List<String> analyze(Analyzer a, String text) throws IOException {
    List<String> out = new ArrayList<>();
    try (TokenStream ts = a.tokenStream("contents", new StringReader(text))) {
      CharTermAttribute t = ts.addAttribute(CharTermAttribute.class);
      ts.reset();
      while (ts.incrementToken()) if (t.length() > 0) out.add(t.toString());
      ts.end();
    }
    return out;
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(new BufferedOutputStream(System.out), false, "UTF-8");
    Analyzer analyzer = new English();
    if (args[0].equals("analyze")) {
      for (String line; (line = in.readLine()) != null; ) out.println(String.join(" ", analyze(analyzer, unescape(line))));
      out.flush();
      return;
    }
    int k = Integer.parseInt(args[1]);
    int n = Integer.parseInt(in.readLine().trim());
    BM25Similarity sim = new BM25Similarity(0.9f, 0.4f);
    ByteBuffersDirectory dir = new ByteBuffersDirectory();
    try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(analyzer).setSimilarity(sim))) {
      for (int i = 0; i < n; i++) {
        String line = in.readLine();
        int tab = line.indexOf('\t');
        String id = line.substring(0, tab);
        out.println(String.join(" ", analyze(analyzer, unescape(line.substring(tab + 1)))));
        Document d = new Document();
        d.add(new StringField("id", id, Field.Store.YES));
        d.add(new SortedDocValuesField("id", new BytesRef(id)));
        d.add(new TextField("contents", unescape(line.substring(tab + 1)), Field.Store.NO));
        w.addDocument(d);
      }
    }
    IndexSearcher searcher = new IndexSearcher(DirectoryReader.open(dir));
    searcher.setSimilarity(sim);
    Sort sort = new Sort(SortField.FIELD_SCORE, new SortField("id", SortField.Type.STRING_VAL));
    List<String> queries = new ArrayList<>();
    for (String line; (line = in.readLine()) != null; ) queries.add(unescape(line));
    for (String query : queries) out.println(String.join(" ", analyze(analyzer, query)));
    for (String query : queries) {
      Map<String, Long> counts = analyze(analyzer, query).stream()
          .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
      BooleanQuery.Builder q = new BooleanQuery.Builder();
      for (String t : counts.keySet()) q.add(new BoostQuery(new TermQuery(new Term("contents", t)), (float) counts.get(t).longValue()), BooleanClause.Occur.SHOULD);
      StringBuilder b = new StringBuilder();
      for (ScoreDoc sd : searcher.search(q.build(), k, sort, true).scoreDocs) {
        if (b.length() > 0) b.append(' ');
        b.append(searcher.doc(sd.doc).get("id")).append(':').append(sd.score);
      }
      out.println(b);
    }
    out.flush();
  }
}
